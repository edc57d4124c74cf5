// `version`: the CLI's version (package.json's) and the API server's, as
// `kubectl version` prints them; --client prints the first only.
import type { Command } from 'commander';
import { kubeFlags, type Ctx } from '../command-context.ts';
import { COMMAND_LINES } from './summaries.ts';
import { printVersion } from './version-print.ts';

export function registerVersion(program: Command, ctx: Ctx): void {
  program
    .command('version')
    .description(COMMAND_LINES.version.description)
    .option('--client', "the CLI's version only: no API server is asked")
    .action(async (opts: { client?: boolean }, cmd: Command) => {
      ctx.exitCode = await printVersion(ctx.io, { flags: kubeFlags(cmd), client: opts.client === true });
    });
}
