// The Containerfile's stages, run as a container engine runs them, without
// one: there is none on this machine. Each stage gets a fresh root directory,
// and WORKDIR is a directory under it. COPY copies from the build context, a
// clean copy of the repository's files with no node_modules/, build/ or
// .cascade/, or from an earlier stage's root. RUN runs `sh -c` in the working
// directory with the stage's ENV and ARGs. Node.js 24, this process' node and
// the image's version, comes first on PATH, with npm beside it. What the last
// stage leaves is the image: its working directory, environment, USER and CMD.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../cluster/paths.ts';
import { ofKind, type Containerfile, type Instruction, type Stage } from '../../scripts/containerfile.ts';

export interface Image {
  /** The image's working directory, on this machine. */
  workdir: string;
  env: Record<string, string>;
  uid: number;
  gid: number;
  cmd: string[];
  /** Every directory the stages made (their roots and homes), to remove. */
  dirs: string[];
}

interface StageState {
  root: string;
  home: string;
  workdir: string;
  env: Record<string, string>;
}

/** The image's PATH: this Node.js first, then the system's (npm is /usr/bin/npm, run by the first node on PATH). */
export const imagePath = () => `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;

/** A copy of what `git clone` would give: the files git tracks (and new ones it does not ignore), as they are in the work tree. */
export function cleanContext(): string {
  const context = mkdtempSync(join(tmpdir(), 'cascade-context-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && existsSync(join(repoRoot, f)));
  for (const file of files) cpSync(join(repoRoot, file), join(context, file), { recursive: true });
  return context;
}

function copy(
  step: Extract<Instruction, { op: 'COPY' }>,
  state: StageState,
  context: string,
  stages: Map<string, StageState>,
): void {
  const dest = step.dest.startsWith('/') ? join(state.root, step.dest) : join(state.workdir, step.dest);
  for (const source of step.sources) {
    const from = step.from ? join(stages.get(step.from)!.root, source) : join(context, source);
    // A source copied onto a path ending in / goes into that directory under its own name.
    const target = step.dest.endsWith('/') ? join(dest, source.split('/').at(-1)!) : dest;
    mkdirSync(dirname(target), { recursive: true });
    cpSync(from, target, { recursive: true });
  }
}

/** A stage that cleans npm's cache gets its own (a fresh one, as in the image); the others share the machine's, which is only read and added to. */
const npmCache = (stage: Stage, home: string) =>
  ofKind(stage, 'RUN').some((r) => r.command.includes('npm cache clean'))
    ? join(home, '.npm')
    : join(homedir(), '.npm');

/**
 * How this machine reaches the npm registry: its npm configuration files, CA
 * and proxy. A builder brings them to an image build; the image does not hold
 * them. npm finds its global configuration beside the node that runs it,
 * which here is Node.js 24 in node_modules, so it is named.
 */
const registryAccess = () =>
  Object.fromEntries(
    [
      'npm_config_globalconfig',
      'npm_config_userconfig',
      'npm_config_cafile',
      'NODE_EXTRA_CA_CERTS',
      'HTTPS_PROXY',
      'https_proxy',
      'HTTP_PROXY',
      'http_proxy',
      'NO_PROXY',
      'no_proxy',
    ].flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])),
  );

async function runStage(
  stage: Stage,
  context: string,
  stages: Map<string, StageState>,
  log: (line: string) => void,
): Promise<StageState> {
  const root = mkdtempSync(join(tmpdir(), `cascade-stage-${stage.name ?? 'final'}-`));
  const home = mkdtempSync(join(tmpdir(), 'cascade-stage-home-'));
  const state: StageState = { root, home, workdir: root, env: {} };
  const runEnv = () => ({
    ...registryAccess(),
    PATH: imagePath(),
    HOME: home,
    npm_config_cache: npmCache(stage, home),
    npm_config_update_notifier: 'false',
    ...state.env,
  });
  for (const step of stage.instructions) {
    if (step.op === 'WORKDIR') mkdirSync((state.workdir = join(root, step.path)), { recursive: true });
    else if (step.op === 'ENV' || step.op === 'ARG') Object.assign(state.env, step.vars);
    else if (step.op === 'COPY') copy(step, state, context, stages);
    else if (step.op === 'RUN') {
      const started = Date.now();
      await promisify(execFile)('sh', ['-c', step.command], { cwd: state.workdir, env: runEnv(), maxBuffer: 64 << 20 });
      log(`RUN ${step.command} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  }
  return state;
}

/** Runs every stage; returns the last one as the image. */
export async function buildImage(
  file: Containerfile,
  context: string,
  log: (line: string) => void = () => {},
): Promise<Image> {
  const stages = new Map<string, StageState>();
  const dirs: string[] = [];
  let last: StageState | undefined;
  for (const stage of file.stages) {
    last = await runStage(stage, context, stages, log);
    dirs.push(last.root, last.home);
    if (stage.name) stages.set(stage.name, last);
  }
  const final = file.stages.at(-1)!;
  const [uid = '0', gid = uid] = (ofKind(final, 'USER').at(-1)?.user ?? '0').split(':');
  // The image's files belong to root and are read-only to its user; its root directory is traversable.
  for (let dir = last!.workdir; dir !== tmpdir(); dir = dirname(dir)) chmodSync(dir, 0o755);
  return {
    workdir: last!.workdir,
    env: last!.env,
    uid: Number(uid),
    gid: Number(gid),
    cmd: ofKind(final, 'CMD').at(-1)!.argv,
    dirs,
  };
}
