// A function that cannot start: no cluster configuration at all (no
// KUBECONFIG, no ~/.kube/config, not in a pod). It says why once, at fatal,
// and exits 1, so that its pod restarts and shows the reason; it does not
// stay up unready (liveness would keep passing), nor spin when signalled.
import { describe, expect, it } from 'vitest';
import { sourceFunction, startFunction } from '../local/function-process.ts';
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
      () => { throw new Error('the function became ready without any cluster configuration'); },
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
