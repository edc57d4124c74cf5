// A function that cannot start: no cluster configuration at all (no
// KUBECONFIG, no ~/.kube/config, not in a pod). It says why once, at fatal,
// and exits 1, so that its pod restarts and shows the reason; it does not
// stay up unready (liveness would keep passing), nor spin when signalled.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../local/cluster/paths.ts';
import { sourceFunction, startFunction } from '../local/stand-ins/function-process.ts';
import { tempDir } from '../local/temp-dir.ts';

function withoutCluster(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== 'KUBECONFIG' && !k.startsWith('KUBERNETES_')) env[k] = v;
  }
  return { ...env, HOME: tempDir('cascade-nohome-') };
}

describe('a function that cannot start', () => {
  it('no cluster configuration: the reason logged once at fatal, exit 1', { timeout: 60_000 }, async () => {
    const failure = await startFunction({}, { ...sourceFunction(), baseEnv: withoutCluster() }).then(
      () => {
        throw new Error('the function became ready without any cluster configuration');
      },
      (error: unknown) => String(error),
    );
    expect(failure).toContain('the function exited with 1');
    const fatal = failure.split('\n').filter((line) => line.includes('"level":60'));
    expect(fatal).toHaveLength(1);
    expect(JSON.parse(fatal[0]!)).toMatchObject({
      msg: 'the function could not start: exiting 1',
      err: { message: 'no KUBECONFIG, no ~/.kube/config, and not in a cluster (KUBERNETES_SERVICE_HOST unset)' },
    });
  });
});

/**
 * A process that installs Cascade's runtime overrides, then never creates the
 * runtime's server: as a runtime would that no longer publishes it on the
 * diagnostics channel, so that no override would run.
 */
const NO_SERVER = `import('${join(repoRoot, 'functions/cascade/runtime-overrides.ts')}').then(async (m) => {
  const { default: pino } = await import('pino');
  m.overrideRuntime(pino());
  setTimeout(() => {}, 5000);
});`;

describe('a runtime whose shape the overrides were not written for', () => {
  it('the start is refused: one fatal line that says why, exit 1', { timeout: 60_000 }, async () => {
    const failure = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', NO_SERVER], {
      cwd: repoRoot,
    }).then(
      () => {
        throw new Error('the process went on without its overrides');
      },
      (error: { code?: number; stdout?: string }) => error,
    );
    expect(failure.code).toBe(1);
    const lines = (failure.stdout ?? '').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 60,
      msg: 'faas-js-runtime is not the version whose behaviour Cascade overrides: exiting 1',
      reason: 'no server was published on the diagnostics channel fastify.initialization',
    });
  });
});
