// `version`'s work, apart from its command line. main.ts runs it directly for
// a bare `version`, without commander: the command is then as quick as a
// lone HTTPS GET allows. Any other command line goes through commander.
import { readFileSync } from 'node:fs';
import type { Io } from '../io.ts';
import { CliError } from '../io.ts';
import { connect, describeError, serverOf, type KubeFlags } from '../kube/connect.ts';
import { EXIT_ERROR } from '../runs/exit-code.ts';

export interface VersionLine {
  flags: KubeFlags;
  client: boolean;
}

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

const FLAG_KEY: Record<string, keyof KubeFlags> = {
  '--kubeconfig': 'kubeconfig',
  '--context': 'context',
  '--namespace': 'namespace',
  '-n': 'namespace',
};

/** One kubectl flag at argv[i], as `--flag value` or `--flag=value`: its key, value and the words it took. */
function flagAt(
  argv: readonly string[],
  i: number,
): { key: keyof KubeFlags; value: string; words: number } | undefined {
  const arg = argv[i]!;
  const eq = arg.indexOf('=');
  if (arg.startsWith('--') && eq > 0) {
    const key = FLAG_KEY[arg.slice(0, eq)];
    return key ? { key, value: arg.slice(eq + 1), words: 1 } : undefined;
  }
  const key = FLAG_KEY[arg];
  const value = argv[i + 1];
  return key && value !== undefined && !value.startsWith('-') ? { key, value, words: 2 } : undefined;
}

/**
 * The command line `version`, with `--client` after it and kubectl's flags
 * anywhere, read without commander. Undefined for any other word, as
 * `--help`: commander then reads the line, so its errors and help stay the only ones.
 */
export function bareVersion(argv: readonly string[]): VersionLine | undefined {
  const flags: KubeFlags = {};
  let named = false;
  let client = false;
  for (let i = 0; i < argv.length;) {
    const arg = argv[i]!;
    const flag = flagAt(argv, i);
    if (flag) flags[flag.key] = flag.value;
    else if (arg === 'version' && !named) named = true;
    else if (arg === '--client' && named) client = true;
    else return undefined;
    i += flag?.words ?? 1;
  }
  return named ? { flags, client } : undefined;
}

/** The API server's gitVersion: one GET. */
async function serverVersion(flags: KubeFlags): Promise<string> {
  return (await connect(flags).rest<{ gitVersion: string }>('GET', '/version')).gitVersion;
}

/** Prints the CLI's version, then the API server's unless `client`, as `kubectl version` does; resolves with the exit status. */
export async function printVersion(io: Io, { flags, client }: VersionLine): Promise<number> {
  io.out.write(`Client Version: ${cliVersion()}\n`);
  if (client) return 0;
  try {
    io.out.write(`Server Version: ${await serverVersion(flags)}\n`);
    return 0;
  } catch (error) {
    io.err.write(`error: ${describeError(error, serverOf(flags))}\n`);
    return error instanceof CliError ? error.code : EXIT_ERROR;
  }
}
