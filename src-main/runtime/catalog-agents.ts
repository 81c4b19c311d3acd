// Scripted sessions shaped like the work of real coding agents (test/fixtures/realdata holds the real ones),
// in their own words: thinking before each step (reasoning with the provider's signature, one redacted),
// words before the tool calls, parallel reads, long shell commands, terminal colours in the output, a
// screenshot in a tool result, and a run of hundreds of steps. The demo shows them; they are not crashed (the
// crash simulator's sessions stay small on purpose).
import { createHash } from 'node:crypto';
import { call, done, run } from './catalog.js';
import type { SessionScript, StepScript, ThinkingScript } from './script.js';

/** The coding agent's run names a model the shipped price table knows, so its steps are priced. */
const CODING_AGENT_MODEL = 'claude-sonnet-4-5';
const ESC = '\u001b';
const red = (text: string) => `${ESC}[31m${text}${ESC}[39m`;
const green = (text: string) => `${ESC}[32m${text}${ESC}[39m`;
const dim = (text: string) => `${ESC}[2m${text}${ESC}[22m`;
const bold = (text: string) => `${ESC}[1m${text}${ESC}[22m`;

/** A 24×16 PNG: a terminal-dark page with a green bar over two grey lines (a passing report). */
export const REPORT_SCREENSHOT_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAAALUlEQVR42mOQkFKgCmKgskF6C5zJRoPcoMEX2CeIBvQyaKiF0UAYNPjCiHIEAAkKCPTo7F3PAAAAAElFTkSuQmCC';

/** Thinking with a signature: an opaque token a provider checks when the thinking is sent back (here a digest
 *  of the text, long as real ones are). */
function thought(text: string): ThinkingScript {
  const digest = createHash('sha512').update(text).digest();
  return { text, signature: Buffer.concat([digest, createHash('sha512').update(digest).digest()]).toString('base64') };
}

const CSV_SOURCE = `export function parseRows(text: string): string[][] {
  const lines = text.split('\\n');
  // the last element is the empty string after the final newline
  lines.pop();
  return lines.map((line) => line.split(','));
}
`;

const CSV_TEST_FAILING = [
  `${dim(' RUN ')} v3.2.4 /home/dev/ledger-cli`,
  '',
  ` ${green('✓')} test/export/csv.test.ts > parseRows > splits a file that ends in a newline ${dim('2ms')}`,
  ` ${red('×')} test/export/csv.test.ts > parseRows > keeps the last row of a file without a trailing newline ${dim('3ms')}`,
  `   ${red('→ expected [ [ \'a\', \'1\' ] ] to deeply equal [ [ \'a\', \'1\' ], [ \'b\', \'2\' ] ]')}`,
  '',
  `${red(bold(' FAIL '))} test/export/csv.test.ts > parseRows > keeps the last row of a file without a trailing newline`,
  `${red('AssertionError')}: expected [ [ 'a', '1' ] ] to deeply equal [ [ 'a', '1' ], [ 'b', '2' ] ]`,
  '',
  `${dim(' Test Files ')} ${red(bold('1 failed'))} (1)`,
  `${dim('      Tests ')} ${red(bold('1 failed'))} | ${green(bold('1 passed'))} (2)`,
].join('\n');

const CSV_TEST_PASSING = [
  `${dim(' RUN ')} v3.2.4 /home/dev/ledger-cli`,
  '',
  ` ${green('✓')} test/export/csv.test.ts > parseRows > splits a file that ends in a newline ${dim('2ms')}`,
  ` ${green('✓')} test/export/csv.test.ts > parseRows > keeps the last row of a file without a trailing newline ${dim('1ms')}`,
  ` ${green('✓')} test/export/report.test.ts > the export page lists every row ${dim('14ms')}`,
  '',
  `${dim(' Test Files ')} ${green(bold('2 passed'))} (2)`,
  `${dim('      Tests ')} ${green(bold('3 passed'))} (3)`,
  '',
  ' src/export/csv.ts | 3 +--',
  ' 1 file changed, 1 insertion(+), 2 deletions(-)',
].join('\n');

const FIX_TEST_COMMAND =
  'npx vitest run test/export/csv.test.ts --reporter=verbose --color 2>&1 | tee /tmp/ledger-cli-csv-before.log | ' +
  "grep -E '✓|×|FAIL|AssertionError|Test Files|Tests' --color=never; echo \"exit status: ${PIPESTATUS[0]}\" >> /tmp/ledger-cli-csv-before.log";

const VERIFY_COMMAND =
  'npx vitest run test/export --reporter=verbose --color && npx tsc --noEmit -p tsconfig.json && ' +
  "git diff --stat -- src/export/ && git diff --check && echo 'all export tests pass, types check, no whitespace errors'";

/** A coding agent fixes a bug: it thinks before each step, reads three things at once, runs long commands
 *  whose output is coloured, edits, checks, and takes a screenshot of the page it fixed. */
export const codingAgentSession: SessionScript = {
  session_id: 'sim-coding-agent',
  runs: [
    run(
      'fix-csv-export',
      [
        {
          thinking: [thought('The report says the CSV export loses its last row when the file has no trailing newline. That sounds like a reader that splits on newlines and always drops the last piece, assuming it is the empty string after a final newline. I will read the parser, its test and the recent history of the folder at the same time.')],
          text: 'Let me read the parser, its test and the recent history of src/export/ together.',
          calls: [
            call('ca1', done(CSV_SOURCE), { name: 'read_file', args: { path: 'src/export/csv.ts' } }),
            call('ca2', done("it('splits a file that ends in a newline', …)\nit('keeps the last row of a file without a trailing newline', …)\n"), { name: 'read_file', args: { path: 'test/export/csv.test.ts' } }),
            call('ca3', done('9c41e0a export: read rows with split instead of the stream reader\n1b7d2f3 export: quote fields that hold a comma\n5e09a6c report page: paginate at 200 rows'), {
              name: 'shell',
              args: { command: 'git log --oneline --no-decorate -n 8 -- src/export/' },
            }),
          ],
        },
        {
          thinking: [thought('parseRows pops the last element unconditionally. With a trailing newline that element is empty; without one it is the last row. The second test should fail the same way: let me run it to be sure before changing anything.')],
          calls: [call('ca4', done(CSV_TEST_FAILING), { name: 'shell', args: { command: FIX_TEST_COMMAND } })],
        },
        {
          thinking: [{ redacted: 'ZW5jcnlwdGVkIHRoaW5raW5nOiB0aGUgcHJvdmlkZXIga2VlcHMgaXRzIHRleHQgdG8gaXRzZWxm' }],
          text: 'The pop() assumes a trailing newline. I will drop only an empty last piece.',
          calls: [
            call('ca5', done('applied 1 edit to src/export/csv.ts (lines 2-4)'), {
              name: 'edit_file',
              args: { path: 'src/export/csv.ts', old: '  lines.pop();', new: "  if (lines.at(-1) === '') lines.pop();" },
            }),
          ],
        },
        { thinking: [thought('Now the whole export suite, the type check and the diff, in one go.')], calls: [call('ca6', done(CSV_TEST_PASSING), { name: 'shell', args: { command: VERIFY_COMMAND } })] },
        {
          text: 'Tests pass; a look at the export page as a user sees it:',
          calls: [
            call(
              'ca7',
              done({
                parts: [
                  { type: 'text', text: 'screenshot of http://localhost:5173/reports/export at 1280×800' },
                  { type: 'media', media_type: 'image/png', data: REPORT_SCREENSHOT_PNG_BASE64 },
                ],
              }),
              { name: 'screenshot', args: { url: 'http://localhost:5173/reports/export', viewport: '1280x800' } },
            ),
          ],
        },
        {
          thinking: [thought('The page lists both rows. Summarise the cause and the fix for the user.')],
          text: 'Fixed. parseRows dropped the last piece of every file, assuming it was the empty string after a final newline; a file without one lost its last row. It now drops only an empty last piece. Both parser tests and the report page test pass, and the export page shows every row.',
        },
      ],
      { input: 'The CSV export drops the last row when the file has no trailing newline. Find out why, fix it, and show me the export page afterwards.', configure: { tool_times: true, model: CODING_AGENT_MODEL } },
    ),
  ],
};

const MIGRATION_PACKAGES = 299;

const pad = (count: number) => String(count).padStart(3, '0');

/** The long run's step `index` (1-based): one package migrated and tested, with a thought every 50 steps. */
function migrationStep(index: number): StepScript {
  const name = `packages/pkg-${pad(index)}`;
  const tests = 2 + (index % 5);
  const step: StepScript = {
    sequential: true,
    calls: [
      call(`lr${index}`, done(`${green('✓')} ${name}/src/index.ts: 1 import renamed\n${green('✓')} ${name} ${dim(`(${tests} tests)`)} ${dim(`${20 + (index % 40)}ms`)}`), {
        name: 'shell',
        args: { command: `npx jscodeshift -t codemods/rename-logger.ts ${name}/src --silent && npx vitest run ${name} --reporter=dot --color` },
      }),
    ],
  };
  if (index % 50 === 1) step.thinking = [thought(`Packages ${pad(index)} to ${pad(Math.min(index + 49, MIGRATION_PACKAGES))} next; so far every package took the codemod without a manual edit.`)];
  return step;
}

/** A run of 300 steps: a codemod and the package's tests, one package a step, then the summary. */
export const longRunSession: SessionScript = {
  session_id: 'sim-long-run',
  runs: [
    run(
      'migrate-logger',
      [...Array.from({ length: MIGRATION_PACKAGES }, (_unused, at) => migrationStep(at + 1)), { text: `Renamed the logger import in all ${MIGRATION_PACKAGES} packages; every package's tests pass.` }],
      { input: `Rename the deprecated logger import in each of the ${MIGRATION_PACKAGES} packages, one package at a time, running its tests after each.`, configure: { tool_times: true, max_steps: MIGRATION_PACKAGES + 1 } },
    ),
  ],
};
