// Errors the service's callers tell apart, as the API's one error: a key or record that does not exist is
// "not found" (404 over HTTP); arguments are checked before they reach the service (dispatchApi).
import { ApiFailure } from '../../src-shared/ipc.js';

export class NotFoundError extends ApiFailure {
  constructor(message: string) {
    super('not_found', message);
  }
}
