import { describe, expect, it } from 'vitest';
import type { Pki } from './certs.ts';
import {
  apiserverCommand,
  controllerManagerCommand,
  RAISED_LIMITS,
  schedulerCommand,
  type CommandContext,
} from './component-commands.ts';

const pki: Pki = {
  caCert: 'ca',
  caKey: 'ck',
  serverCert: 's',
  serverKey: 'k',
  saKey: 'sa',
  saPub: 'sp',
  client: () => ({ cert: 'c', key: 'k' }),
};
const context = (limits?: CommandContext['limits']): CommandContext => ({
  binDir: '/bin',
  pki,
  etcdDataDir: '/d',
  auditLog: '/a',
  stageFiles: [],
  limits,
  ports: { etcdClient: 1, etcdPeer: 2, apiserver: 3, controllerManager: 4, scheduler: 5, kwok: 6 },
  kubeconfigs: { controllerManager: 'cm', scheduler: 'sch', kwok: 'kw' },
});
const limitFlags = (args: string[]) =>
  args.filter((a) => /^--(kube-api-|concurrent-job-syncs|max-(mutating-)?requests-inflight)/.test(a));

describe('component API limits', () => {
  it('passes no limit flag by default: every component keeps its own defaults', () => {
    for (const command of [apiserverCommand, controllerManagerCommand, schedulerCommand])
      expect(limitFlags(command(context()).args)).toEqual([]);
  });

  it('passes each limit set to the component it belongs to', () => {
    const c = context({
      kubeApiQps: 500,
      kubeApiBurst: 900,
      concurrentJobSyncs: 40,
      maxRequestsInflight: 800,
      maxMutatingRequestsInflight: 300,
    });
    expect(limitFlags(controllerManagerCommand(c).args)).toEqual([
      '--kube-api-qps=500',
      '--kube-api-burst=900',
      '--concurrent-job-syncs=40',
    ]);
    expect(limitFlags(schedulerCommand(c).args)).toEqual(['--kube-api-qps=500', '--kube-api-burst=900']);
    expect(limitFlags(apiserverCommand(c).args)).toEqual([
      '--max-requests-inflight=800',
      '--max-mutating-requests-inflight=300',
    ]);
  });

  it('the raised limits lift the controller manager above client-go defaults', () => {
    const args = controllerManagerCommand(context(RAISED_LIMITS)).args;
    expect(args).toContain(`--kube-api-qps=${RAISED_LIMITS.kubeApiQps}`);
    expect(args).toContain(`--kube-api-burst=${RAISED_LIMITS.kubeApiBurst}`);
  });
});
