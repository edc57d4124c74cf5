// What shell completion offers for the words typed so far, in cobra's
// `__complete` format, which kubectl reads from a plugin's
// `kubectl_complete-<name>`: one candidate a line, then `:4` (no file names).
// Pure: the commands' flags and the names the cluster has come in as data.

export interface CommandSpec {
  name: string;
  aliases: string[];
  /** Long and short flags; those that take a value are in `withValue` too. */
  flags: string[];
  withValue: string[];
  /** Whether its first argument is a run's name. */
  takesRun: boolean;
}

export interface CompletionSpec {
  commands: CommandSpec[];
  globalFlags: string[];
  globalWithValue: string[];
}

/** The values a flag takes, fixed or asked of the cluster. */
export interface Lookups {
  runs(namespace: string | undefined): Promise<string[]>;
  namespaces(): Promise<string[]>;
  contexts(): string[];
}

export const DIRECTIVE_NO_FILES = ':4';

const FIXED_VALUES: Record<string, readonly string[]> = {
  '--phase': ['Queued', 'Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'],
  '--output': ['json', 'yaml', 'wide', 'name', 'jsonpath='],
  '-o': ['json', 'yaml', 'wide', 'name', 'jsonpath='],
};

/** The namespace the words give with -n or --namespace, if any. */
function namespaceIn(words: readonly string[]): string | undefined {
  const i = words.findLastIndex((w) => w === '-n' || w === '--namespace');
  if (i >= 0) return words[i + 1];
  return words.find((w) => w.startsWith('--namespace='))?.slice('--namespace='.length);
}

interface Parsed {
  command?: CommandSpec;
  positionals: number;
}

/** The command the words name and how many positional arguments follow it, skipping flags and their values. */
function parse(spec: CompletionSpec, words: readonly string[]): Parsed {
  const parsed: Parsed = { positionals: 0 };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const withValue = [...spec.globalWithValue, ...(parsed.command?.withValue ?? [])];
    if (withValue.includes(w)) i++;
    else if (w.startsWith('-')) continue;
    else if (!parsed.command) parsed.command = spec.commands.find((c) => c.name === w || c.aliases.includes(w));
    else parsed.positionals++;
  }
  return parsed;
}

/** The values of the flag typed last, if it takes one. */
function valuesOf(
  flag: string,
  command: CommandSpec | undefined,
  lookups: Lookups,
): Promise<string[]> | string[] | undefined {
  if (flag === '-n' || flag === '--namespace') return lookups.namespaces();
  if (flag === '--context') return lookups.contexts();
  if (command?.withValue.includes(flag) || flag === '--kubeconfig') return [...(FIXED_VALUES[flag] ?? [])];
  return undefined;
}

async function candidates(spec: CompletionSpec, words: readonly string[], lookups: Lookups): Promise<string[]> {
  const before = words.slice(0, -1);
  const current = words.at(-1) ?? '';
  const previous = before.at(-1);
  const { command, positionals } = parse(spec, before);
  const values = previous === undefined ? undefined : valuesOf(previous, command, lookups);
  if (values) return values;
  if (current.startsWith('-')) return [...(command?.flags ?? []), ...spec.globalFlags];
  if (!command) return spec.commands.map((c) => c.name);
  if (command.takesRun && positionals === 0) return lookups.runs(namespaceIn(before));
  return [];
}

/** The lines `__complete WORDS...` prints: the candidates that start with the word being completed, then `:4`. */
export async function completionLines(
  spec: CompletionSpec,
  words: readonly string[],
  lookups: Lookups,
): Promise<string[]> {
  const current = words.at(-1) ?? '';
  let found: string[] = [];
  try {
    found = await candidates(spec, words.length === 0 ? [''] : words, lookups);
  } catch {
    // a cluster that cannot be reached offers nothing, as kubectl's completion does
  }
  return [...found.filter((c) => c.startsWith(current)), DIRECTIVE_NO_FILES];
}
