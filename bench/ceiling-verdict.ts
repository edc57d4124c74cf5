// Where one function process saturates, read from the levels of the ceiling
// phase (bench/ceiling.ts): the highest rate reached, and which resource was
// used up there, with the figures that say so. Pure.

export interface LevelFigures {
  senders: number;
  transitionsPerSecond: number;
  /** CPU in cores by process (function, kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok). */
  cores: Record<string, number>;
  /** Busy cores of the whole machine (all processes, other users' included). */
  machineBusyCores: number;
  machineCores: number;
  /** Requests the API server answered 429 during the level. */
  apiserver429: number;
}

export interface Verdict {
  transitionsPerSecond: number;
  atSenders: number;
  /** `function`, `machine`, `apiserver-inflight`, or `none` (more senders would go faster). */
  limit: 'function' | 'machine' | 'apiserver-inflight' | 'none';
  evidence: string;
  /** The function's CPU per transition at the best level (ms of one core). */
  functionCpuMsPerTransition: number;
  /**
   * What one function process would carry with its core to itself (the API
   * server elsewhere, as on a cluster): FUNCTION_SATURATED_CORES over its CPU
   * per transition. An extrapolation, said so wherever it is printed.
   */
  functionCeilingPerSecond: number;
}

/** One Node.js thread is all the function has: at 85 % of a core it is saturated. */
export const FUNCTION_SATURATED_CORES = 0.85;
/** The machine is saturated when 90 % of its cores are busy. */
export const MACHINE_SATURATED = 0.9;

const f2 = (x: number) => x.toFixed(2);

function processes(l: LevelFigures): string {
  return Object.entries(l.cores)
    .sort(([, a], [, b]) => b - a)
    .map(([name, c]) => `${name} ${f2(c)}`)
    .join(', ');
}

export function verdict(levels: readonly LevelFigures[]): Verdict | undefined {
  if (levels.length === 0) return undefined;
  const best = levels.reduce((a, b) => (b.transitionsPerSecond > a.transitionsPerSecond ? b : a));
  const fn = best.cores.function ?? 0;
  const cpu = `CPU in cores at ${best.senders} senders: ${processes(best)}; machine ${f2(best.machineBusyCores)} of ${best.machineCores} busy`;
  const cpuMs = best.transitionsPerSecond > 0 ? (fn * 1000) / best.transitionsPerSecond : Number.NaN;
  const base = {
    transitionsPerSecond: best.transitionsPerSecond,
    atSenders: best.senders,
    functionCpuMsPerTransition: cpuMs,
    functionCeilingPerSecond: (FUNCTION_SATURATED_CORES * 1000) / cpuMs,
  };
  if (fn >= FUNCTION_SATURATED_CORES)
    return { ...base, limit: 'function', evidence: `the function's one thread is busy (${f2(fn)} cores); ${cpu}` };
  if (best.apiserver429 > 0)
    return {
      ...base,
      limit: 'apiserver-inflight',
      evidence: `the API server refused ${best.apiserver429} requests with 429; ${cpu}`,
    };
  if (best.machineBusyCores >= MACHINE_SATURATED * best.machineCores) {
    return {
      ...base,
      limit: 'machine',
      evidence: `every core is busy, the function at ${f2(fn)} cores: the control plane and the function share the machine; ${cpu}`,
    };
  }
  return { ...base, limit: 'none', evidence: `nothing is used up (${cpu}): more senders would go faster` };
}

/** What a transition costs one process before Cascade decides anything: its requests in, and its API calls out. */
export interface TransitionFloor {
  /** CPU per request of faas-js-runtime serving a function that does nothing (the events phase's floor), µs. */
  runtimeUsPerRequest: number;
  /** Requests one transition brings the function (the ceiling phase counts its invocations). */
  requestsPerTransition: number;
  /** CPU per API call of a bare Node.js process (bench/api-call-floor.ts), µs. */
  apiCallUs: number;
  /** The function's API calls per transition (the ceiling phase counts them in the audit log). */
  apiCallsPerTransition: number;
}

/**
 * The floor's CPU per transition, and the transitions/s it leaves one process
 * on FUNCTION_SATURATED_CORES: no function of this runtime that makes these
 * calls carries more, whatever it decides.
 */
export function transitionFloor(f: TransitionFloor): { msPerTransition: number; perSecond: number } {
  const msPerTransition =
    (f.runtimeUsPerRequest * f.requestsPerTransition + f.apiCallUs * f.apiCallsPerTransition) / 1000;
  return { msPerTransition, perSecond: (FUNCTION_SATURATED_CORES * 1000) / msPerTransition };
}
