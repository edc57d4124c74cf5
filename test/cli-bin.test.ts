// The kubectl-cascade bin as users get it: `npm i -g <checkout>` (a link to
// the checkout: the sources run on the Node.js 24 of the checkout's
// dependencies), `npx` in the checkout, and `npm i -g` of the package
// `npm pack` makes (a copy under node_modules: the compiled build/cli runs on
// the PATH's Node.js). Each lists the runs of the test cluster, and
// `kubectl cascade` finds it on the PATH.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { adminKubeconfigPath } from './support/kube.ts';

const dirs: string[] = [];
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** PATH without the checkout's node_modules/.bin: the machine's own node and npm. */
const machinePath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((d) => !d.includes('node_modules'))
  .join(delimiter);

function run(
  file: string,
  args: string[],
  opts: { cwd?: string; path?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: opts.cwd ?? tmpdir(),
        env: { ...process.env, PATH: opts.path ?? machinePath, NO_COLOR: '1' },
        timeout: 500_000,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

const listArgs = () => ['list', '-A', '--kubeconfig', adminKubeconfigPath()];
const listed = (r: { code: number; stdout: string; stderr: string }) => {
  expect(r.code, r.stderr).toBe(0);
  // a table of the runs, or (npm may warn on stderr first) that there are none
  // (columns are as wide as their widest cell: other tests' runs may be listed too)
  expect(
    /^NAMESPACE +NAME +SCENARIO +PHASE +STEP +AGE +DURATION\n/.test(r.stdout) ||
      r.stderr.split('\n').includes('No runs found.'),
    `${r.stdout}${r.stderr}`,
  ).toBe(true);
};

describe('the kubectl-cascade bin', () => {
  it('npm i -g <checkout> links it: it runs whichever Node.js the PATH has first, and kubectl finds the plugin', async () => {
    const prefix = tmp('cascade-bin-link-');
    const installed = await run('npm', ['i', '-g', '--prefix', prefix, '--no-audit', '--no-fund', repoRoot]);
    expect(installed.code, installed.stderr).toBe(0);
    const bin = join(prefix, 'bin', 'kubectl-cascade');
    expect(realpathSync(bin)).toBe(join(repoRoot, 'cli/kubectl-cascade'));
    listed(await run(bin, listArgs()));
    listed(await run(bin, listArgs(), { path: [dirname(process.execPath), machinePath].join(delimiter) }));
    // kubectl runs kubectl-<name> found on the PATH for `kubectl <name>`
    listed(
      await run(kubectlPath(), ['cascade', ...listArgs()], {
        path: [join(prefix, 'bin'), machinePath].join(delimiter),
      }),
    );
  }, 600_000);

  it("npx kubectl-cascade runs it in the checkout, on the machine's Node.js, without a warning", async () => {
    const r = await run('npx', ['--no-install', 'kubectl-cascade', ...listArgs()], { cwd: repoRoot });
    listed(r);
    expect(r.stderr).not.toMatch(/npm warn|EBADENGINE/i);
  }, 600_000);

  it('npm pack makes a package with the compiled CLI (prepack builds it); installed from it, the compiled CLI runs under node_modules', async () => {
    const out = tmp('cascade-bin-pack-');
    const packed = await run('npm', ['pack', '--pack-destination', out], { cwd: repoRoot });
    expect(packed.code, packed.stderr).toBe(0);
    const [tarball] = readdirSync(out).filter((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const prefix = tmp('cascade-bin-package-');
    const installed = await run('npm', [
      'i',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(out, tarball!),
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const pkg = join(prefix, 'lib', 'node_modules', 'cascade');
    expect(existsSync(join(pkg, 'build/cli/main.js'))).toBe(true);
    expect(existsSync(join(pkg, 'cli/main.ts'))).toBe(false);
    listed(
      await run(join(prefix, 'bin', 'kubectl-cascade'), listArgs(), {
        path: [dirname(process.execPath), machinePath].join(delimiter),
      }),
    );
  }, 600_000);
});
