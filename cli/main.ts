// kubectl-cascade's entry: `kubectl cascade ...` (kubectl finds the plugin on
// the PATH) or `kubectl-cascade ...`. kubectl-cascade.js beside it loads this
// file, or its compiled build/cli/main.js where types cannot be stripped.
import { bareVersion, printVersion } from './commands/version-print.ts';
import { processIo } from './io.ts';
import { EXIT_INTERRUPTED } from './runs/exit-code.ts';

// Ctrl-C ends any command with 130, as kubectl's does; a second one changes nothing.
process.on('SIGINT', () => process.exit(EXIT_INTERRUPTED));
// A reader that stops early, as `| head` does, ends the command quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
const argv = process.argv.slice(2);
// A bare `version` skips commander's load, most of what it would cost beyond its one GET.
const version = bareVersion(argv);
process.exitCode = version
  ? await printVersion(processIo(), version)
  : await (await import('./program.ts')).runCli(argv, processIo());
