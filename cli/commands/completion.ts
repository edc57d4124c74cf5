// `completion bash|zsh|fish`: prints the shell's completion script.
import { Argument, type Command } from 'commander';
import { act, type Ctx } from '../command-context.ts';
import { SCRIPTS, SHELLS, type Shell } from '../completion/scripts.ts';

export function registerCompletion(program: Command, ctx: Ctx): void {
  program
    .command('completion')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .description('print the completion script of bash, zsh or fish; kubectl completes `kubectl cascade` itself')
    .action(
      act(ctx, async (shell: Shell) => {
        ctx.io.out.write(SCRIPTS[shell]);
        return 0;
      }),
    );
}
