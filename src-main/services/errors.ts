// Errors the service's callers tell apart: a key, list or action that does not exist (answered as "not found").
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}
