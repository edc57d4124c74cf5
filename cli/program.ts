// kubectl-cascade's command line (commander): kubectl's connection flags on
// every command, one file per command under commands/.
import { Command, CommanderError } from 'commander';
import type { Ctx } from './command-context.ts';
import { registerControl } from './commands/control.ts';
import { examplesText } from './commands/examples.ts';
import { registerGet } from './commands/get.ts';
import { registerLint } from './commands/lint.ts';
import { registerList } from './commands/list.ts';
import { registerLogs } from './commands/logs.ts';
import { registerSubmit } from './commands/submit.ts';
import { registerUi } from './ui/command.ts';
import { registerVersion } from './commands/version.ts';
import { registerWatch } from './commands/watch.ts';
import type { Io } from './io.ts';
import { EXIT_ERROR } from './runs/exit-code.ts';

export function buildProgram(ctx: Ctx): Command {
  const program = new Command('kubectl cascade')
    .usage('<command> [options]')
    .description("Cascade's runs from the command line: submit, list, get, watch, logs, cancel, resume, lint, version")
    .option('--kubeconfig <path>', 'the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option('-n, --namespace <namespace>', "the namespace (default: the context's, else default)")
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ writeOut: (s) => ctx.io.out.write(s), writeErr: (s) => ctx.io.err.write(s) })
    .showSuggestionAfterError()
    .exitOverride();
  registerSubmit(program, ctx);
  registerList(program, ctx);
  registerGet(program, ctx);
  registerWatch(program, ctx);
  registerLogs(program, ctx);
  registerControl(program, ctx, 'cancel');
  registerControl(program, ctx, 'resume');
  registerLint(program, ctx);
  registerVersion(program, ctx);
  registerUi(program, ctx);
  program.addHelpText('after', examplesText(''));
  for (const cmd of program.commands)
    cmd.exitOverride().configureOutput(program.configureOutput()).addHelpText('after', examplesText(cmd.name()));
  return program;
}

/** Short options that take a value: kubectl reads `-n=ns` as `-n ns`, and so does this CLI. */
const SHORT_WITH_VALUE = /^-([no])=(.*)$/s;

/** `-n=ns` as two words, `-n ns` (commander would take `=ns` as the value); everything after `--` as it is. */
export function splitShortEquals(argv: readonly string[]): string[] {
  const end = argv.indexOf('--');
  return argv.flatMap((arg, i) => {
    const m = end >= 0 && i > end ? null : SHORT_WITH_VALUE.exec(arg);
    return m ? [`-${m[1]!}`, m[2]!] : [arg];
  });
}

/** Runs the command line `argv` (without node and the script); resolves with the exit status. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const ctx: Ctx = { io, exitCode: 0 };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(splitShortEquals(argv), { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_ERROR;
    throw error;
  }
  return ctx.exitCode;
}
