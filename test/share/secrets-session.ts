// A session with hostile markup and secrets in every field a bundle shows: the run's input and id, a steer, the
// model's text, a call's name, id and args, its output, a run_finished reason. For the share tests.
import { withSession } from '../app/wal-fixture.js';

export const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="alert(1)">&amp;"\'';

/** Secrets of the kinds a share redacts by default, each of a form its rule knows (made up, not live). */
export const SECRETS = {
  anthropic: `sk-ant-api03-${'A1b2C3d4E5'.repeat(9)}xyzAA`,
  github: 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  email: 'jane.customer@example.org',
  bearer: 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.abcdefghijklmnop',
  private_key: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${'q'.repeat(120)}\n-----END RSA PRIVATE KEY-----`,
};

/** The plain texts of each class, none of them a secret. */
export const PLAIN = {
  input: 'please deploy the quarterly numbers',
  model_text: 'I will read the ledger first',
  args: 'ledger-2026-q3.csv',
  output: 'revenue column totals 4242',
};

export function writeSecretsSession(root: string, session_id: string): void {
  const user = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
  withSession(root, session_id, (append) => {
    append('run_started', { run_id: `run ${HOSTILE}`, session: session_id, config: { model: 'm' }, input: [user(`${PLAIN.input} ${HOSTILE} mail ${SECRETS.email}`)] });
    append('model_step_finished', {
      step_id: 1,
      assistant_message: { role: 'assistant', content: [{ type: 'text', text: `${PLAIN.model_text} ${HOSTILE}\n${SECRETS.private_key}` }, { type: 'tool_use', id: `c1${HOSTILE}`, name: `read${HOSTILE}`, input: { path: PLAIN.args, auth: `Bearer ${SECRETS.bearer}` } }] },
      usage: { input_tokens: 5, output_tokens: 3 },
    });
    append('tool_batch_started', { batch_id: 'b1', step_id: 1, sequential: false, planned_calls: [{ tool_call_id: `c1${HOSTILE}`, name: `read${HOSTILE}`, plan: 'dispatch' }] });
    append('tool_dispatch_intent', { batch_id: 'b1', tool_call_id: `c1${HOSTILE}`, args: { path: PLAIN.args, auth: `Bearer ${SECRETS.bearer}` } });
    append('tool_result', { batch_id: 'b1', tool_call_id: `c1${HOSTILE}`, outcome: 'ok', output: `${PLAIN.output} ${HOSTILE} key=${SECRETS.anthropic}` });
    append('tool_batch_finished', { batch_id: 'b1' });
    append('steered', { input: [user(`also ${HOSTILE} use ${SECRETS.github}`)], title: HOSTILE });
    append('model_step_finished', { step_id: 2, assistant_message: { role: 'assistant', content: [{ type: 'text', text: `done ${HOSTILE}` }] }, usage: { input_tokens: 9, output_tokens: 3 } });
    append('run_finished', { reason: `completed` });
  });
}
