// Starts the components in order and waits for each one's health endpoint.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiserverCommand,
  controllerManagerCommand,
  etcdCommand,
  kwokCommand,
  schedulerCommand,
  type Command,
  type CommandContext,
} from './component-commands.ts';
import { probeOk, type ProbeTls } from './http-probe.ts';
import type { StatePaths } from './paths.ts';
import { pollUntil } from './poll.ts';
import { ComponentError, logTail, startProcess, type Component } from './processes.ts';

/** The components, in start order. */
export const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const;
export type ComponentName = (typeof COMPONENTS)[number];

interface Launch {
  name: ComponentName;
  command: (c: CommandContext) => Command;
  healthUrl: (c: CommandContext) => string;
  tls?: (c: CommandContext) => ProbeTls;
  timeoutMs: number;
}

const launches: Record<ComponentName, Launch> = {
  etcd: {
    name: 'etcd',
    command: etcdCommand,
    healthUrl: (c) => `http://127.0.0.1:${c.ports.etcdClient}/health`,
    timeoutMs: 30_000,
  },
  'kube-apiserver': {
    name: 'kube-apiserver',
    command: apiserverCommand,
    healthUrl: (c) => `https://127.0.0.1:${c.ports.apiserver}/readyz`,
    tls: (c) => ({
      ca: readFileSync(c.pki.caCert),
      cert: readFileSync(c.pki.client('admin').cert),
      key: readFileSync(c.pki.client('admin').key),
    }),
    timeoutMs: 90_000,
  },
  'kube-controller-manager': {
    name: 'kube-controller-manager',
    command: controllerManagerCommand,
    healthUrl: (c) => `https://127.0.0.1:${c.ports.controllerManager}/healthz`,
    tls: () => ({ insecure: true }),
    timeoutMs: 60_000,
  },
  'kube-scheduler': {
    name: 'kube-scheduler',
    command: schedulerCommand,
    healthUrl: (c) => `https://127.0.0.1:${c.ports.scheduler}/healthz`,
    tls: () => ({ insecure: true }),
    timeoutMs: 60_000,
  },
  kwok: {
    name: 'kwok',
    command: kwokCommand,
    healthUrl: (c) => `http://127.0.0.1:${c.ports.kwok}/healthz`,
    timeoutMs: 60_000,
  },
};

async function assertRunning(component: Component): Promise<void> {
  if (!component.exit) return;
  const { code, signal } = component.exit;
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  const tail = await logTail(component.logFile);
  throw new ComponentError(component.name, `failed to start: it ${how}`, { file: component.logFile, tail });
}

/** True when the component's health endpoint answers 200. */
export function componentHealthy(name: ComponentName, context: CommandContext): Promise<boolean> {
  const launch = launches[name];
  return probeOk(launch.healthUrl(context), launch.tls?.(context) ?? {});
}

/**
 * Starts one component (its log appended to, its pid recorded under its name)
 * and waits until its health endpoint answers; throws with the tail of its log
 * if it exits or does not get healthy in time.
 */
export async function launchComponent(
  name: ComponentName,
  context: CommandContext,
  paths: StatePaths,
): Promise<Component> {
  const launch = launches[name];
  const component = startProcess(launch.name, launch.command(context), {
    logFile: join(paths.logs, `${launch.name}.log`),
    pidsFile: paths.pids,
  });
  const url = launch.healthUrl(context);
  try {
    await pollUntil(() => componentHealthy(name, context), {
      timeoutMs: launch.timeoutMs,
      intervalMs: 100,
      what: `${launch.name} at ${url}`,
      abort: () => assertRunning(component),
    });
  } catch (error) {
    if (error instanceof ComponentError) throw error;
    await assertRunning(component);
    const reason = `did not become healthy within ${launch.timeoutMs / 1000} s (${url})`;
    throw new ComponentError(launch.name, reason, { file: component.logFile, tail: await logTail(component.logFile) });
  }
  return component;
}

/**
 * etcd, then kube-apiserver, then the controller manager, scheduler and kwok
 * together. Returns a check that throws if any of them has died since.
 */
export async function launchControlPlane(
  context: CommandContext,
  paths: StatePaths,
  log: (message: string) => void,
): Promise<{ components: Component[]; assertAlive: () => Promise<void> }> {
  log('cluster: starting etcd');
  const etcd = await launchComponent('etcd', context, paths);
  log('cluster: starting kube-apiserver');
  const apiserver = await launchComponent('kube-apiserver', context, paths);
  log('cluster: starting kube-controller-manager, kube-scheduler, kwok');
  const rest = await Promise.all(
    (['kube-controller-manager', 'kube-scheduler', 'kwok'] as const).map((name) =>
      launchComponent(name, context, paths),
    ),
  );
  const components = [etcd, apiserver, ...rest];
  const assertAlive = async () => {
    for (const component of components) await assertRunning(component);
  };
  return { components, assertAlive };
}
