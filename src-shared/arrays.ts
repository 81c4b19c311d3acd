// push(...more) passes every item as a function argument: past ~100k items (one long episode's rows, lines or
// messages) the call stack overflows. appendAll is the one way this project appends a list to a list.
export function appendAll<T>(target: T[], more: readonly T[]): void {
  for (const item of more) target.push(item);
}
