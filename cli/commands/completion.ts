// `completion bash|zsh|fish`: prints the shell's completion script.
import { Argument, type Command } from 'commander';
import { act, type Ctx } from '../command-context.ts';
import { SCRIPTS, SHELLS, type Shell } from '../completion/scripts.ts';
import { COMMAND_LINES } from './summaries.ts';

export function registerCompletion(program: Command, ctx: Ctx): void {
  program
    .command('completion')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .description(COMMAND_LINES.completion.description)
    .action(
      act(ctx, async (shell: Shell) => {
        ctx.io.out.write(SCRIPTS[shell]);
        return 0;
      }),
    );
}
