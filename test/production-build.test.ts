// What the image runs, run here (there is no container engine on this
// machine): the image's stages in clean copies of the repository
// (local/node/image-stages.ts): `npm ci` and `npm run build`, then, in a
// second clean directory, `npm ci --omit=dev --omit=optional` and the compiled
// output. Then the image's command, as the image's user, with the environment
// the image sets, type stripping off (a .ts file would not load) and its only
// writable place a TMPDIR of its own (a mounted emptyDir): it serves a run end
// to end against the control plane under the function's ServiceAccount, and
// the CronJob's command sweeps under the janitor's. The build's code cache,
// written again after a warm-up slowed down, is the same bytes.
import { execFile } from 'node:child_process';
import {
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { load as parseYaml } from 'js-yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../local/cluster/paths.ts';
import { tempDir } from '../local/temp-dir.ts';
import { startFunction, type FunctionCommand } from '../local/stand-ins/function-process.ts';
import { writeCodeCache } from '../scripts/code-cache.ts';
import { CACHE_FILE } from '../scripts/launcher.ts';
import type { Lockfile } from '../scripts/lockfile.ts';
import { successScenario } from './fixtures/scenarios.ts';
import { cascadeHarness, OUT, post, SCENARIO, type Harness } from './support/cascade-harness.ts';
import { buildStages, cleanContext, imagePath, type Image } from '../local/node/image-stages.ts';
import { janitorKubeconfig } from './support/janitor.ts';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
// CI runs as root, so the process can run as the image's user; elsewhere it runs as the user running the tests.
const asImageUser = process.getuid?.() === 0;
let image: Image;
let context: string | undefined;
let h: Harness | undefined;
const mounts = new Set<string>();

beforeAll(async () => {
  context = cleanContext();
  image = await buildStages(context);
}, 900_000);
afterEach(async () => {
  await h?.stop();
  h = undefined;
});
// The stages' directories hold two installs of the dependencies (about 450 MB).
afterAll(() => {
  for (const dir of [context, ...(image?.dirs ?? []), ...mounts])
    if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every file under `dir`, relative to it, not descending into `skip`. */
function filesUnder(dir: string, skip: string[] = []): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .filter((f) => !skip.some((s) => f === s || f.startsWith(`${s}/`)));
}

/** A directory the image's user owns: a mounted Secret or emptyDir. */
function mounted(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'cascade-mount-'));
  mounts.add(dir);
  for (const [name, source] of Object.entries(files)) copyFileSync(source, join(dir, name));
  if (asImageUser)
    for (const path of [dir, ...Object.keys(files).map((n) => join(dir, n))]) chownSync(path, image.uid, image.gid);
  return dir;
}

/** The image's process: its CMD (or `argv`) in its working directory, with its environment only. */
function imageProcess(argv: string[], tmp: string): FunctionCommand & { env: Record<string, string> } {
  expect(argv[0]).toBe('node');
  const env = {
    ...image.env,
    PATH: imagePath(),
    HOME: image.workdir,
    TMPDIR: tmp,
    NODE_OPTIONS: '--no-experimental-strip-types',
  };
  return {
    cwd: image.workdir,
    args: argv.slice(1),
    baseEnv: env,
    env,
    ...(asImageUser ? { uid: image.uid, gid: image.gid } : {}),
  };
}

/** Entries of the shared temporary directories the image's user owns, but for the mounts given to it (none of its own making should appear). */
const ownedInSharedTmp = () =>
  asImageUser
    ? ['/tmp', '/var/tmp', '/dev/shm']
        .filter(existsSync)
        .flatMap((d) => readdirSync(d).map((n) => join(d, n)))
        .filter(
          (p) =>
            !mounts.has(p) &&
            (() => {
              try {
                return statSync(p).uid === image.uid;
              } catch {
                return false;
              }
            })(),
        )
    : [];

describe('the image, from its stages run in clean copies', () => {
  it("runs on the Node.js of the npm package `node`, and holds the compiled function, the janitor and the build's identity", () => {
    expect(process.version).toBe(`v${pkg.devDependencies.node}`);
    for (const f of [
      'build/functions/cascade/server.cjs',
      'build/functions/cascade/function.cjs',
      'build/functions/cascade/index.js',
      'build/functions/janitor/main.js',
      'build/build-info.json',
    ]) {
      expect(existsSync(join(image.workdir, f)), f).toBe(true);
    }
  });

  it('holds the production dependencies of the lock and compiled JavaScript, nothing else', () => {
    const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as Lockfile;
    const production = Object.entries(lock.packages as Record<string, { dev?: boolean; devOptional?: boolean }>)
      .filter(([key, e]) => key && !e.dev && !e.devOptional)
      .map(([key]) => key)
      .sort();
    const installed = JSON.parse(
      readFileSync(join(image.workdir, 'node_modules/.package-lock.json'), 'utf8'),
    ) as Lockfile;
    expect(Object.keys(installed.packages).sort()).toEqual(production);
    // A devDependency is there only where the production tree needs that package (kubectl-cascade's client-node brings its own @types/node).
    for (const dev of Object.keys(pkg.devDependencies)) {
      if (!production.includes(`node_modules/${dev}`))
        expect(existsSync(join(image.workdir, 'node_modules', dev)), dev).toBe(false);
    }
    expect(existsSync(join(image.workdir, 'node_modules/typescript'))).toBe(false);

    const own = filesUnder(image.workdir, ['node_modules']);
    expect(own.filter((f) => !f.startsWith('build/')).sort()).toEqual(['package-lock.json', 'package.json']);
    // and V8's code cache of the function's bundle, made by the build
    expect(own.filter((f) => !/\.(c?js|c?js\.map|json)$/.test(f))).toEqual([
      'build/functions/cascade/function.code-cache',
    ]);
  });

  it("compiles the function's bundle with the build's code cache: V8 takes it under the image's command's flags, as its user", async () => {
    const entry = image.cmd.at(-1)!;
    const probe = `process.stdout.write(String(require('./${entry}').load().cacheTaken)); process.exit(0)`;
    const fn = imageProcess([...image.cmd.slice(0, -1), '-e', probe], mounted());
    const { stdout } = await promisify(execFile)(process.execPath, fn.args, {
      cwd: fn.cwd,
      uid: fn.uid,
      gid: fn.gid,
      env: fn.env,
    });
    expect(stdout).toBe('true');
  });

  it("writes the same code cache when the warm-up is slow: the function's timers do not fire in it", () => {
    // each answer of the stand-in API server 200 ms late: the warm-up lasts past the second after which the
    // function opens its watches and takes its Lease (functions/cascade/app.ts)
    const copy = tempDir('cascade-code-cache-');
    cpSync(join(image.src, 'build'), join(copy, 'build'), { recursive: true });
    const bundle = (root: string) => join(root, 'build', 'functions', 'cascade');
    rmSync(join(bundle(copy), CACHE_FILE));
    writeCodeCache(bundle(copy), image.src, { ...process.env, WARM_API_PAUSE_MS: '200' });
    const cache = (root: string) => readFileSync(join(bundle(root), CACHE_FILE));
    expect(cache(copy).length).toBeGreaterThan(1 << 20);
    expect(cache(copy).equals(cache(image.src))).toBe(true);
  });

  it("serves a run end to end as the image's user under the function's ServiceAccount, loading no TypeScript and writing nothing; the CronJob's janitor sweeps", async () => {
    const before = ownedInSharedTmp();
    const tmp = mounted();
    const fn = imageProcess(image.cmd, tmp);
    h = await cascadeHarness({
      modules: successScenario(300),
      start: (env) =>
        startFunction({ ...env, KUBECONFIG: join(mounted({ kubeconfig: env.KUBECONFIG! }), 'kubeconfig') }, fn),
    });
    const health = (await (await fetch(`${h.url()}/healthz`)).json()) as Record<string, string>;
    // the commit's identity, as every build of it has (buildInfo)
    expect(health).toMatchObject({ status: 'OK', ...image.info });

    const reply = await post(h.url(), {
      turlinfo: 's3://incoming/in.tgz',
      iuid: 'image-run-1',
      oname: 'org',
      sname: 'src',
    });
    expect(reply).toMatchObject({ status: 200, body: { run: `${SCENARIO}-image` } });
    const run = await h.waitEnded(`${SCENARIO}-image`);
    expect(run.status).toMatchObject({
      phase: 'Succeeded',
      info: `${OUT}${SCENARIO}/image-run-1/image-run-1-final.zip`,
    });
    expect(h.fns[0]!.errorLines()).toEqual([]);

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
    const cronJob = parseYaml(readFileSync(join(repoRoot, 'knative/janitor-cronjob.yaml'), 'utf8')) as any;
    const janitor = imageProcess(cronJob.spec.jobTemplate.spec.template.spec.containers[0].command, tmp);
    const kubeconfig = join(mounted({ kubeconfig: await janitorKubeconfig(h.ns) }), 'kubeconfig');
    const swept = await promisify(execFile)(process.execPath, janitor.args, {
      cwd: janitor.cwd,
      uid: janitor.uid,
      gid: janitor.gid,
      env: {
        ...janitor.env,
        KUBECONFIG: kubeconfig,
        POD_NAMESPACE: h.ns,
        SCENARIO_NAME: SCENARIO,
        OUT_MINIO_ADDRESS: OUT,
      },
    });
    expect(JSON.parse(swept.stdout)).toMatchObject({ janitor: 'sweep', runsSeen: 1, errors: 0 });

    await h.stop();
    h = undefined;
    expect(readdirSync(tmp)).toEqual([]);
    expect(ownedInSharedTmp()).toEqual(before);
  });
});
