// `__complete WORDS...`: the commands' flags read from the commander
// program, and the names completed from the cluster and the kubeconfig.
import type { Command, Option } from 'commander';
import { connect, type KubeFlags } from '../kube/connect.ts';
import { kubeconfigPaths, parseKubeconfig } from '../../shared/kube/kubeconfig.ts';
import { listRuns } from '../kube/runs.ts';
import { readFileSync } from 'node:fs';
import { completionLines, type CompletionSpec, type Lookups } from './complete.ts';

const flagsOf = (options: readonly Option[]) =>
  options.flatMap((o) => [o.long, o.short].filter((f) => f !== undefined));
const valueFlagsOf = (options: readonly Option[]) => flagsOf(options.filter((o) => o.required || o.optional));

export function specOf(program: Command): CompletionSpec {
  return {
    commands: program.commands.map((c) => ({
      name: c.name(),
      aliases: c.aliases(),
      flags: flagsOf(c.options),
      withValue: valueFlagsOf(c.options),
      takesRun: ['run', 'runs'].includes(c.registeredArguments[0]?.name() ?? ''),
    })),
    globalFlags: flagsOf(program.options),
    globalWithValue: valueFlagsOf(program.options),
  };
}

/** --kubeconfig, --context and -n as typed among the words. */
function flagsIn(words: readonly string[]): KubeFlags {
  const after = (...names: string[]) => {
    const i = words.findLastIndex((w) => names.includes(w));
    return i >= 0 ? words[i + 1] : undefined;
  };
  return { kubeconfig: after('--kubeconfig'), context: after('--context'), namespace: after('-n', '--namespace') };
}

function lookups(words: readonly string[]): Lookups {
  const flags = flagsIn(words);
  return {
    runs: async (namespace) => {
      const kube = connect({ ...flags, namespace });
      return (await listRuns(kube, kube.namespace)).items.map((r) => r.metadata.name ?? '');
    },
    namespaces: async () =>
      (await connect(flags).rest<{ items: { metadata: { name: string } }[] }>('GET', '/api/v1/namespaces')).items.map(
        (n) => n.metadata.name,
      ),
    contexts: () =>
      kubeconfigPaths(flags, process.env).flatMap((p) => {
        try {
          return (parseKubeconfig(readFileSync(p, 'utf8')).contexts ?? []).map((c) => c.name ?? '');
        } catch {
          return [];
        }
      }),
  };
}

/** The lines `kubectl-cascade __complete WORDS...` prints. */
export function complete(program: Command, words: readonly string[]): Promise<string[]> {
  return completionLines(specOf(program), words, lookups(words));
}
