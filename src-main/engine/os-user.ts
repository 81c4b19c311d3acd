// The OS user walscope runs as: what every operator_action records beside the name an operator gives (a name is
// self-declared; the account the writing process runs under is not).
import os from 'node:os';

export function osUser(): string {
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}
