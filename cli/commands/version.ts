// `version`: the CLI's version (package.json's) and the API server's, as
// `kubectl version` prints them; --client prints the first only.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { act, kubeFlags, type Ctx } from '../command-context.ts';
import type { KubeFlags } from '../kube/connect.ts';
import { loadAccess } from '../kube/kubeconfig.ts';
import { getJson } from '../kube/rest.ts';
import { COMMAND_LINES } from './summaries.ts';

/** package.json's version: two levels up from cli/commands/ in a checkout, three from build/cli/commands/ in a package. */
export function cliVersion(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'cascade' && pkg.version) return pkg.version;
    } catch {
      /* not there: the other layout */
    }
  }
  return 'unknown';
}

/** The API server's gitVersion: one GET over rest.ts; the reader, with client-node, only for a user it alone serves. */
async function serverVersion(flags: KubeFlags): Promise<string> {
  const access = loadAccess(flags);
  if (access.needsClientNode) return (await (await import('../kube/reader.ts')).reader(flags)).serverVersion();
  return (await getJson<{ gitVersion: string }>(access, '/version')).gitVersion;
}

export function registerVersion(program: Command, ctx: Ctx): void {
  program
    .command('version')
    .description(COMMAND_LINES.version.description)
    .option('--client', "the CLI's version only: no API server is asked")
    .action(
      act(ctx, async (opts: { client?: boolean }, cmd: Command) => {
        ctx.io.out.write(`Client Version: ${cliVersion()}\n`);
        if (opts.client) return 0;
        const server = await serverVersion(kubeFlags(cmd));
        ctx.io.out.write(`Server Version: ${server}\n`);
        return 0;
      }),
    );
}
