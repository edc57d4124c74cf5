// kubectl-cascade's entry: `kubectl cascade ...` (kubectl finds the plugin on
// the PATH) or `kubectl-cascade ...`. kubectl-cascade.js beside it loads this
// file, or its compiled build/cli/main.js where types cannot be stripped.
import { processIo } from './io.ts';
import { runCli } from './program.ts';

process.exitCode = await runCli(process.argv.slice(2), processIo());
