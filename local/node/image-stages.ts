// The function image's recipe, run with no container engine (there is none
// on this machine), in two stages:
// - build: a clean copy of the repository (cleanContext), then
//   `npm ci` and `npm run build` (BUILD_STAGE), the build's identity from git;
// - run: a fresh directory with package.json and package-lock.json,
//   `npm ci --omit=dev --omit=optional` (RUN_STAGE), and the build stage's
//   build/. The run stage's directory is the image's /app (IMAGE_RUN).
// --omit=optional as well: valibot names typescript as an optional peer, so
// with --omit=dev alone npm keeps TypeScript (24 MB), which nothing runs.
// Commands run with `sh -c` in the stage's directory, on this process' Node.js
// 24 first on PATH, with npm beside it. local/node/function-image.ts makes the
// image of the result.
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../cluster/paths.ts';

/** The build stage's commands, in a clean copy of the repository. */
export const BUILD_STAGE = ['npm ci --no-audit --no-fund', 'npm run build'];
/** The run stage's commands, beside package.json and package-lock.json alone; then build/ is copied in. */
export const RUN_STAGE = ['npm ci --omit=dev --omit=optional --no-audit --no-fund'];

/**
 * How the image runs: in /app, as the numeric non-root user 1000 (so that
 * runAsNonRoot can verify it), with NODE_ENV=production. Its files are root's
 * and read-only to that user, and nothing is written at run time: the pod can
 * use readOnlyRootFilesystem.
 */
export const IMAGE_RUN = { workdir: '/app', uid: 1000, gid: 1000, env: { NODE_ENV: 'production' } } as const;

/** The image's command: node itself, not `npm run` (npm writes its logs under $HOME, read-only there), as `npm run start:function` runs it. */
export function imageCommand(root = repoRoot): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return pkg.scripts['start:function']!.split(' ');
}

/** build/build-info.json, which /healthz reports. */
export interface BuildInfo {
  tag: string;
  hash: string;
  date: string;
}

function git(root: string, ...args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * The build's identity, the same for every build of one commit: git's tag
 * (`-dirty` when the work tree has changes), the commit, and its date, or
 * SOURCE_DATE_EPOCH's. BUILD_TAG, BUILD_HASH and BUILD_DATE override them.
 */
export function buildInfo(root = repoRoot, env = process.env): BuildInfo {
  const commitTime = Number(git(root, 'log', '-1', '--format=%ct'));
  const epoch = env.SOURCE_DATE_EPOCH ? Number(env.SOURCE_DATE_EPOCH) : commitTime;
  return {
    tag: env.BUILD_TAG || git(root, 'describe', '--tags', '--always', '--dirty') || 'dev',
    hash: env.BUILD_HASH || git(root, 'rev-parse', 'HEAD') || 'unknown',
    date: env.BUILD_DATE || isoSeconds(Number.isFinite(epoch) ? epoch : 0),
  };
}

export interface Image {
  /** The image's working directory, on this machine: the run stage's. */
  workdir: string;
  /** The build stage's directory: the clean copy, built. */
  src: string;
  env: Record<string, string>;
  uid: number;
  gid: number;
  cmd: string[];
  info: BuildInfo;
  /** Every directory the stages made (their roots and homes), to remove. */
  dirs: string[];
}

/** The image's PATH: this Node.js first, then the system's (npm is /usr/bin/npm, run by the first node on PATH). */
export const imagePath = () => `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;

/** What `git clone` would give: the files git tracks, and new ones it does not ignore, relative to `root`. */
export function contextFiles(root = repoRoot): string[] {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f && existsSync(join(root, f)));
}

/** A copy of contextFiles(), as they are in the work tree. */
export function cleanContext(): string {
  const context = mkdtempSync(join(tmpdir(), 'cascade-context-'));
  for (const file of contextFiles()) cpSync(join(repoRoot, file), join(context, file), { recursive: true });
  return context;
}

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

/** Runs the commands in `dir`, each with `sh -c`, with a home of its own and the machine's npm cache (only read and added to). */
async function runCommands(
  commands: string[],
  dir: string,
  env: Record<string, string>,
  log: (line: string) => void,
): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), 'cascade-stage-home-'));
  for (const command of commands) {
    const started = Date.now();
    await promisify(execFile)('sh', ['-c', command], {
      cwd: dir,
      maxBuffer: 64 << 20,
      env: {
        ...registryAccess(),
        PATH: imagePath(),
        HOME: home,
        npm_config_cache: join(homedir(), '.npm'),
        npm_config_update_notifier: 'false',
        ...env,
      },
    });
    log(`RUN ${command} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  return home;
}

/** Runs both stages in `context` (a cleanContext(), which becomes the build stage); returns the run stage as the image. */
export async function buildStages(context: string, log: (line: string) => void = () => {}): Promise<Image> {
  const info = buildInfo();
  const buildEnv = { BUILD_TAG: info.tag, BUILD_HASH: info.hash, BUILD_DATE: info.date };
  const buildHome = await runCommands(BUILD_STAGE, context, buildEnv, log);
  const root = mkdtempSync(join(tmpdir(), 'cascade-stage-final-'));
  const workdir = join(root, IMAGE_RUN.workdir);
  mkdirSync(workdir);
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(context, file), join(workdir, file));
  const runHome = await runCommands(RUN_STAGE, workdir, IMAGE_RUN.env, log);
  cpSync(join(context, 'build'), join(workdir, 'build'), { recursive: true });
  // The image's files belong to root and are read-only to its user; its root directory is traversable.
  for (let dir = workdir; dir !== tmpdir(); dir = dirname(dir)) chmodSync(dir, 0o755);
  return {
    workdir,
    src: context,
    env: { ...IMAGE_RUN.env },
    uid: IMAGE_RUN.uid,
    gid: IMAGE_RUN.gid,
    cmd: imageCommand(context),
    info,
    dirs: [context, buildHome, root, runHome],
  };
}
