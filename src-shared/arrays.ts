// push(...more) or Math.max(...values) passes every item as a function argument: past ~100k items (one long
// episode's rows, one step's attempts, a session's episodes) the call stack overflows. appendAll, largest and
// smallest are the one way this project appends a list to a list or finds its extremes; eslint.config.js
// forbids the spread into a call.
export function appendAll<T>(target: T[], more: Iterable<T>): void {
  for (const item of more) target.push(item);
}

/** The largest of `values`, or null when there are none. */
export function largest(values: Iterable<number>): number | null {
  let found: number | null = null;
  for (const value of values) if (found === null || value > found) found = value;
  return found;
}

/** The smallest of `values`, or null when there are none. */
export function smallest(values: Iterable<number>): number | null {
  let found: number | null = null;
  for (const value of values) if (found === null || value < found) found = value;
  return found;
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
