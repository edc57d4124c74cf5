// Shell completion against the real API server: kubectl itself completes
// `kubectl cascade get <TAB>` through kubectl_complete-cascade on the PATH,
// and the bash script of `completion bash` completes kubectl-cascade.
import { execFile } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { cli } from './support/cli.ts';
import { createRun } from './support/janitor.ts';
import { adminKubeConfig, adminKubeconfigPath, createTestNamespace } from './support/kube.ts';
import { successScenario } from './fixtures/scenarios.ts';

vi.setConfig({ testTimeout: 200_000 });

let ns: string;
let run: string;
/** A PATH with both bins as `npm i -g` links them, and this Node.js. */
let path: string;
beforeAll(async () => {
  ns = await createTestNamespace('cli-complete');
  run = await createRun({ custom: adminKubeConfig().makeApiClient(CustomObjectsApi), ns }, 'completes', {
    iuid: 'complete-me',
    modules: successScenario(0),
  });
  const bin = mkdtempSync(join(tmpdir(), 'cascade-complete-'));
  for (const name of ['kubectl-cascade', 'kubectl_complete-cascade'])
    symlinkSync(join(repoRoot, 'cli', name), join(bin, name));
  path = [bin, dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
});

function exec(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: { ...process.env, PATH: path, KUBECONFIG: adminKubeconfigPath() }, timeout: 100_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('shell completion', () => {
  it("kubectl completes `kubectl cascade -n NS get ` with the namespace's runs, through kubectl_complete-cascade", async () => {
    const r = await exec(kubectlPath(), ['__complete', 'cascade', '-n', ns, 'get', '']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([run, ':4']);
    const flags = await exec(kubectlPath(), ['__complete', 'cascade', 'list', '--ph']);
    expect(flags.stdout.trim().split('\n')).toEqual(['--phase', ':4']);
  });

  it('the bash script completes commands, and run names from the cluster', async () => {
    const script = await cli(['completion', 'bash']);
    expect(script.code).toBe(0);
    const complete = (words: string) =>
      exec('bash', [
        '-c',
        `${script.stdout}\nCOMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _kubectl_cascade; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ]);
    expect((await complete('kubectl-cascade wa')).stdout.trim()).toBe('watch');
    expect((await complete(`kubectl-cascade -n ${ns} logs ''`)).stdout.trim()).toBe(run);
    for (const shell of ['zsh', 'fish']) expect((await cli(['completion', shell])).stdout).toContain('__complete');
    expect((await cli(['completion', 'tcsh'])).code).toBe(1);
  });
});
