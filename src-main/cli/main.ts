// The `walscope` command line: one dispatcher, one module per command.
import { EXIT_FAILED, EXIT_READER_GONE, EXIT_USAGE, UsageError, walscopeVersion, type Command } from './command.js';
import { acknowledgeCommand } from './acknowledge.js';
import { alertsCommand } from './alerts.js';
import { bundleCommand } from './bundle.js';
import { cancelCommand, resumeCommand, sealCommand } from './actions.js';
import { demoCommand } from './demo.js';
import { diffCommand } from './diff.js';
import { dumpCommand } from './dump.js';
import { agentCommand, fetchCommand, fleetCommand } from './fleet.js';
import { lineagesCommand } from './lineages.js';
import { replayCommand } from './replay.js';
import { reportCommand } from './report.js';
import { retireCommand } from './retire.js';
import { serveCommand } from './serve.js';
import { guardStream } from './terminal.js';
import { verifyCommand } from './verify.js';

const COMMANDS: Record<string, Command> = {
  verify: verifyCommand,
  dump: dumpCommand,
  replay: replayCommand,
  report: reportCommand,
  bundle: bundleCommand,
  diff: diffCommand,
  resume: resumeCommand,
  cancel: cancelCommand,
  seal: sealCommand,
  acknowledge: acknowledgeCommand,
  alerts: alertsCommand,
  lineages: lineagesCommand,
  retire: retireCommand,
  serve: serveCommand,
  demo: demoCommand,
  fleet: fleetCommand,
  agent: agentCommand,
  fetch: fetchCommand,
};

function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(11)} ${command.summary}`);
  return `walscope — inspect and recover agent-runtime write-ahead logs\n\nusage: walscope <command> [options]\n\n${lines.join('\n')}\n\nwalscope help <command> (or walscope <command> --help) shows a command's options;\nwalscope --version prints the version.\n`;
}

function commandHelp(command: Command): string {
  return `usage: ${command.usage}\n\n${command.summary}\n`;
}

function commandNamed(name: string): Command | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

function unknownCommand(name: string): number {
  process.stderr.write(`walscope: unknown command "${name}"\n\n${help()}`);
  return EXIT_USAGE;
}

/** Set once the command is known, so a failure names the command that failed. */
let running = 'walscope';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') {
    process.stdout.write(`walscope ${walscopeVersion()}\n`);
    return 0;
  }
  if (name === 'help' && rest.length > 0) {
    const asked = commandNamed(rest[0]!);
    if (asked === undefined) return unknownCommand(rest[0]!);
    process.stdout.write(commandHelp(asked));
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help());
    return name === undefined ? EXIT_USAGE : 0;
  }
  const command = commandNamed(name);
  if (command === undefined) return unknownCommand(name);
  running = `walscope ${name}`;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${running}: ${error.message}\nusage: ${command.usage}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

/** Any error nothing else handled: one line naming the command and what failed, then exit. The stack only
 *  with WALSCOPE_DEBUG=1: a user needs what failed and where, not our call frames. */
function fail(error: unknown): never {
  const debug = process.env['WALSCOPE_DEBUG'] === '1';
  const text = error instanceof Error ? (debug ? (error.stack ?? error.message) : error.message) : String(error);
  process.stderr.write(`${running}: ${debug ? text : oneLine(text)}\n`);
  process.exit(EXIT_FAILED);
}

function oneLine(text: string): string {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '').join(' — ') || 'failed';
}

/** The reader of our stdout went away (`walscope dump X | head`): stop at once and quietly, as a C tool killed
 *  by SIGPIPE would, with the status a shell reports for one (128 + 13). Any other stream error is a failure. */
function onStdoutError(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(EXIT_READER_GONE);
  fail(error);
}

process.stdout.on('error', onStdoutError);
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
guardStream(process.stdout);
guardStream(process.stderr);

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, fail);
