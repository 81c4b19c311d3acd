// Linux: open-file-description locks (F_OFD_SETLK), released by the OS when the process dies; two
// descriptions conflict even inside one process, which is what makes an in-process double lease fail too.
declare module 'fs-native-extensions' {
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
  const fsNative: { tryLock: typeof tryLock; unlock: typeof unlock };
  export default fsNative;
}
