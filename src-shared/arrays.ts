// push(...more) passes every item as a function argument: past ~100k items (one long episode's rows, lines or
// messages) the call stack overflows. appendAll is the one way this project appends a list to a list.
export function appendAll<T>(target: T[], more: Iterable<T>): void {
  for (const item of more) target.push(item);
}

/** One empty list shared by the fold's objects that have none yet (a step's notes, a call's successors): most
 *  never get one, and an empty array of their own cost 32 bytes each, ~11 MB of a million records' fold.
 *  Frozen, so code that pushes onto it fails loudly instead of changing every list at once: add with
 *  `withItem`. */
export const NONE: never[] = Object.freeze([]) as unknown as never[];

/** `list` with `item` appended: in place, or a new list in place of the shared NONE. */
export function withItem<T>(list: T[], item: T): T[] {
  if (list === NONE) return [item];
  list.push(item);
  return list;
}
