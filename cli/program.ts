// kubectl-cascade's command line (commander): kubectl's connection flags on
// every command, one file per command under commands/.
import { Command, CommanderError, Help } from 'commander';
import type { Ctx } from './command-context.ts';
import { examplesText } from './commands/examples.ts';
import { COMMAND_LINES, type CommandName } from './commands/summaries.ts';
import { printLines, type Io } from './io.ts';
import { EXIT_ERROR } from './runs/exit-code.ts';

type Register = (program: Command, ctx: Ctx) => void;

/**
 * Each command's registration, loaded on demand: a command line loads the
 * module of the command it names and no other, so `version` never loads
 * lint's schema. `--help` alone, or a name that is no command, loads them all.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  submit: async () => (await import('./commands/submit.ts')).registerSubmit,
  list: async () => (await import('./commands/list.ts')).registerList,
  get: async () => (await import('./commands/get.ts')).registerGet,
  watch: async () => (await import('./commands/watch.ts')).registerWatch,
  logs: async () => (await import('./commands/logs.ts')).registerLogs,
  cancel: async () => {
    const { registerControl } = await import('./commands/control.ts');
    return (program, ctx) => registerControl(program, ctx, 'cancel');
  },
  resume: async () => {
    const { registerControl } = await import('./commands/control.ts');
    return (program, ctx) => registerControl(program, ctx, 'resume');
  },
  lint: async () => (await import('./commands/lint.ts')).registerLint,
  version: async () => (await import('./commands/version.ts')).registerVersion,
  delete: async () => (await import('./commands/delete.ts')).registerDelete,
  completion: async () => (await import('./commands/completion.ts')).registerCompletion,
  ui: async () => (await import('./ui/command.ts')).registerUi,
};
const ALIASES: Record<string, string> = { ls: 'list' };
/** The options before the command that take a value: the word after them is no command. */
const GLOBAL_WITH_VALUE = new Set(['--kubeconfig', '--context', '-n', '--namespace']);

/** The first word of `argv` that is neither an option nor an option's value, if any. */
function firstWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (GLOBAL_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** The command that `argv` names (an alias read as its command), or undefined when it names none. */
export function commandNamed(argv: readonly string[]): string | undefined {
  const word = firstWord(argv);
  const name = word === undefined ? undefined : (ALIASES[word] ?? word);
  return name !== undefined && name in COMMANDS ? name : undefined;
}

/** A command as the top-level help lists it, from COMMAND_LINES: its module is not loaded. */
const lineOnly =
  (name: CommandName): Register =>
  (program) => {
    const { description } = COMMAND_LINES[name];
    const cmd = program.command(name).description(description);
    if (name === 'list') cmd.alias('ls');
  };

/** The program with every command, as completion reads it. */
async function everyCommand(ctx: Ctx): Promise<Command> {
  return programWith(ctx, await Promise.all(Object.values(COMMANDS).map((load) => load())));
}

/**
 * The program with the commands `argv` needs: the one it names; with no word
 * at all, as in `--help`, each command's help line only; else every one.
 */
async function buildProgram(ctx: Ctx, argv: readonly string[]): Promise<Command> {
  const named = commandNamed(argv);
  if (named) return programWith(ctx, [await COMMANDS[named]!()]);
  if (firstWord(argv) === undefined)
    return programWith(ctx, (Object.keys(COMMAND_LINES) as CommandName[]).map(lineOnly), true);
  return everyCommand(ctx);
}

/** The help's term of a command built by lineOnly: the one its module would give it. */
const lineTerm = (cmd: Command) => COMMAND_LINES[cmd.name() as CommandName]?.term ?? new Help().subcommandTerm(cmd);

function programWith(ctx: Ctx, registers: Register[], linesOnly = false): Command {
  const program = new Command('kubectl cascade')
    .usage('<command> [options]')
    .description(
      "Cascade's runs from the command line: submit, list, get, watch, logs, cancel, resume, lint, delete, version, completion, ui",
    )
    .option('--kubeconfig <path>', 'the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use')
    .option('-n, --namespace <namespace>', "the namespace (default: the context's, else default)")
    .configureHelp(linesOnly ? { showGlobalOptions: true, subcommandTerm: lineTerm } : { showGlobalOptions: true })
    .configureOutput({ writeOut: (s) => ctx.io.out.write(s), writeErr: (s) => ctx.io.err.write(s) })
    .showSuggestionAfterError()
    .exitOverride();
  for (const register of registers) register(program, ctx);
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

/** The hidden command shell completion calls, as cobra names it: `__complete WORDS...`, the last being the word typed. */
const COMPLETE = '__complete';

/** Runs the command line `argv` (without node and the script); resolves with the exit status. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const ctx: Ctx = { io, exitCode: 0 };
  const args = splitShortEquals(argv);
  if (args[0] === COMPLETE) {
    const { complete } = await import('./completion/adapter.ts');
    printLines(io, await complete(await everyCommand({ io, exitCode: 0 }), args.slice(1)));
    return 0;
  }
  const program = await buildProgram(ctx, args);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_ERROR;
    throw error;
  }
  return ctx.exitCode;
}
