// The terminal table of one benchmark result (one round, or the median and
// spread of several). Pure.
import { transitionFloor } from './ceiling-verdict.ts';
import { cliSpeedSection } from './cli-speed.ts';
import { formatCell, formatNumber, type Cell, type Section } from './table.ts';
import { jobPathSection, replicasSection, sustainedSection } from './sustained-report.ts';

type Tree = Record<string, unknown>;

/** A figure: a number, or "median (min–max)" for repeats. */
export function fig(v: unknown): Cell {
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && 'median' in v) {
    const s = v as { median: number; min: number; max: number };
    return `${formatNumber(s.median)} (${formatNumber(s.min)}–${formatNumber(s.max)})`;
  }
  return undefined;
}

const at = (t: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((o, k) => (o as Tree | undefined)?.[k as string], t);
const list = (v: unknown): Tree[] => (Array.isArray(v) ? (v as Tree[]) : []);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : (v as { median?: number } | undefined)?.median;

function transitions(f: Tree): Section | undefined {
  if (!f.transitions) return undefined;
  const row = (name: string, key: string): Cell[] => [
    name,
    ...['n', 'p50', 'p95', 'p99', 'max'].map((q) => fig(at(f.transitions, key, q))),
  ];
  return {
    title: 'Step transition latency (ms): previous step done → next Job in the API server',
    head: ['path', 'n', 'p50', 'p95', 'p99', 'max'],
    rows: [
      row('Job complete (ApiServerSource) → next Job', 'jobCompleteToNextJobMs'),
      row('module result POST → next Job', 'latencyMs'),
      row('module result POST → reply', 'replyMs'),
    ],
  };
}

function deadSink(f: Tree): Section | undefined {
  if (!f.deadSink) return undefined;
  const row = [
    'module result that ends the run → reply',
    ...['n', 'p50', 'p95', 'max'].map((q) => fig(at(f.deadSink, 'resultReplyMs', q))),
  ];
  return { title: 'With a K_SINK that never answers (ms)', head: ['path', 'n', 'p50', 'p95', 'max'], rows: [row] };
}

function e2e(f: Tree): Section | undefined {
  if (!f.endToEnd) return undefined;
  return {
    title: 'End to end, one run at a time (ms, median): run request → Succeeded',
    head: [
      'modules',
      'runs',
      'e2e',
      'overhead (e2e − pods)',
      'Kubernetes (Job → complete)',
      'Cascade',
      'run request reply',
    ],
    rows: list(f.endToEnd).map((r) => [
      String(num(r.modules)),
      fig(r.runs),
      fig(r.e2eMs),
      fig(r.overheadMs),
      fig(r.kubernetesMs),
      fig(r.cascadeMs),
      fig(r.replyMs),
    ]),
  };
}

const CLIENTS = ['function', 'apiserversource', 'janitor', 'bench', 'job-controller'];

/** A figure beside its target: "16.2 (≤ 17)". */
function vsTarget(v: unknown, target: number): Cell {
  const n = num(v);
  return n === undefined ? undefined : `${formatNumber(n)} (≤ ${target})`;
}

/** A cost column: modules per run, runs at once. */
const shape = (r: Tree) => `${num(r.modules)} modules, ${num(r.concurrency) ?? 5} at once`;

function cost(f: Tree): Section[] {
  if (!f.apiCost) return [];
  const runs = list(at(f, 'apiCost', 'runs'));
  const fnVerbs = [
    ...new Set(runs.flatMap((r) => Object.keys((at(r, 'perRun', 'function', 'byVerb') as Tree) ?? {}))),
  ].sort();
  const m = at(f, 'apiCost', 'marginalPerStep');
  const own = (r: Tree) => {
    const reads = num(at(r, 'perRun', 'function', 'reads'));
    const writes = num(at(r, 'perRun', 'function', 'writes'));
    return reads === undefined || writes === undefined ? undefined : reads + writes;
  };
  return [
    {
      title:
        "The function's API requests per run (audit log, by client identity; Events apart; targets for 3 modules in bench/README.md)",
      head: ['', ...runs.map(shape)],
      rows: [
        ['own requests, Events aside', ...runs.map((r) => (num(r.modules) === 3 ? vsTarget(own(r), 17) : own(r)))],
        ['reads (get, list, watch)', ...runs.map((r) => fig(at(r, 'perRun', 'function', 'reads')))],
        ['writes (Events aside)', ...runs.map((r) => fig(at(r, 'perRun', 'function', 'writes')))],
        ['lower bound of writes (2N+3)', ...runs.map((r) => fig(r.lowerBoundWritesPerRun))],
        ['Kubernetes Events', ...runs.map((r) => fig(at(r, 'perRun', 'function', 'events')))],
        ['ApiServerSource deliveries', ...runs.map((r) => fig(r.sourceDeliveriesPerRun))],
        ['step transitions (N+1)', ...runs.map((r) => fig(r.stepTransitionsPerRun))],
        ['reads per step transition', ...runs.map((r) => vsTarget(at(r, 'functionPerTransition', 'reads'), 1))],
        ['Events per step transition', ...runs.map((r) => vsTarget(at(r, 'functionPerTransition', 'events'), 1))],
        ...fnVerbs.map((v) => [`  ${v}`, ...runs.map((r) => fig(at(r, 'perRun', 'function', 'byVerb', v)))]),
      ],
    },
    {
      title: 'API requests per run by client (reads / writes / Events)',
      head: ['client', ...runs.map(shape)],
      rows: CLIENTS.map((c) => [
        c,
        ...runs.map((r) =>
          ['reads', 'writes', 'events'].map((k) => formatNumber(num(at(r, 'perRun', c, k)) ?? Number.NaN)).join(' / '),
        ),
      ]),
    },
    {
      title: "The function's API requests of one more step (steady state: (10-module run − 3-module run) / 7)",
      head: ['reads', 'writes', 'Events'],
      rows: [[fig(at(m, 'reads')), fig(at(m, 'writes')), fig(at(m, 'events'))]],
    },
  ];
}

function tp(f: Tree): Section | undefined {
  if (!f.throughput) return undefined;
  const cores = (r: Tree, p: string) => fig(at(r, 'usage', p, 'cores'));
  return {
    title: 'Throughput, 3-module runs, one function process (CPU in cores of 2)',
    head: [
      'in flight',
      'runs ended',
      'left',
      'runs/s',
      'steps/s',
      'run p50 ms',
      'Job→complete p50',
      'complete→next Job p50',
      'p99',
      'fn CPU',
      'apiserver CPU',
      'etcd CPU',
      'ctrl-mgr CPU',
      'kwok CPU',
      'loop p99 ms',
      'fn RSS MiB',
    ],
    rows: list(f.throughput).map((r) => [
      String(num(r.inFlight)),
      fig(r.runs),
      fig(r.unfinished),
      fig(r.runsPerSecond),
      fig(r.stepsPerSecond),
      fig(at(r, 'runMs', 'p50')),
      fig(at(r, 'kubernetesStepMs', 'p50')),
      fig(at(r, 'cascadeStepMs', 'p50')),
      fig(at(r, 'cascadeStepMs', 'p99')),
      cores(r, 'function'),
      cores(r, 'kube-apiserver'),
      cores(r, 'etcd'),
      cores(r, 'kube-controller-manager'),
      cores(r, 'kwok'),
      fig(r.eventLoopDelayP99Ms),
      fig(at(r, 'usage', 'function', 'maxRssMiB')),
    ]),
  };
}

function cold(f: Tree): Section[] {
  const out: Section[] = [];
  if (f.coldStart) {
    const c = f.coldStart as Tree;
    out.push({
      title: 'Cold start (ms from process spawn)',
      head: [
        'first /healthz answered',
        'first /ready answered',
        'first run request answered',
        'first Job created',
        'RSS after start MiB',
      ],
      rows: [[fig(c.toLiveMs), fig(c.toReadyMs), fig(c.toRunAnsweredMs), fig(c.toFirstJobMs), fig(c.rssAfterStartMiB)]],
    });
  }
  if (f.coldFloor) {
    const c = f.coldFloor as Tree;
    out.push({
      title: `The floor under it (ms from spawn to the first answered POST, median of ${fig(c.tries)}): Node.js alone (node:http), and faas-js-runtime serving a function that does nothing, bundled and code-cached as the build does Cascade`,
      head: ['node:http', 'faas-js-runtime, empty function'],
      rows: [[fig(c.nodeMs), fig(c.runtimeMs)]],
    });
  }
  if (f.coldPaired) {
    const c = f.coldPaired as Tree;
    out.push({
      title: `Cold start against ${String(c.vs)} (BENCH_COLD_VS), ${fig(c.pairs)} pairs taken in turn: spawn → first run request answered, and the main thread's CPU time then (ms, medians)`,
      head: ['', 'answered', 'main-thread CPU'],
      rows: [
        ['BENCH_ENTRY', fig(c.entryMs), fig(c.entryCpuMs)],
        ['BENCH_COLD_VS', fig(c.vsMs), fig(c.vsCpuMs)],
        ['pair by pair, BENCH_ENTRY − BENCH_COLD_VS', fig(c.deltaMs), fig(c.deltaCpuMs)],
      ],
    });
  }
  if (f.importMs) {
    out.push({
      title: 'Import time by module (ms, each alone in a fresh process)',
      head: ['module', 'ms'],
      rows: Object.entries(f.importMs as Tree).map(([k, v]) => [k, fig(v)]),
    });
  }
  return out;
}

function memory(f: Tree): Section | undefined {
  if (!f.memory) return undefined;
  const m = f.memory as Tree;
  return {
    title: 'Function memory (VmRSS, MiB)',
    head: ['idle', `at ${num(m.maxInFlight) ?? '–'} runs in flight`],
    rows: [[fig(m.idleRssMiB), fig(m.atMaxInFlightRssMiB)]],
  };
}

function janitor(f: Tree): Section | undefined {
  if (!f.janitor) return undefined;
  return {
    title:
      'Janitor: one sweep (the janitor process, as its ServiceAccount) over N live runs; target 10,000 in < 10 s, memory bounded',
    head: [
      'live runs',
      'sweep ms',
      'process ms',
      'peak RSS MiB',
      'runs handled',
      'reads',
      'writes by Cascade',
      'Events (any component)',
      'errors',
      'compared: sweep ms',
      'peak RSS MiB',
      'reads',
      'heap capped (old 96 MiB): sweep ms',
      'peak RSS MiB',
    ],
    rows: list(f.janitor).map((r) => [
      String(num(r.liveRuns)),
      fig(r.sweepMs),
      fig(r.processMs),
      fig(r.peakRssMiB),
      fig(r.runsHandled),
      fig(at(r, 'requests', 'reads')),
      fig(at(r, 'requests', 'cascadeWrites')),
      fig(at(r, 'requests', 'events')),
      fig(r.errors),
      fig(at(r, 'compare', 'sweepMs')),
      fig(at(r, 'compare', 'peakRssMiB')),
      fig(at(r, 'compare', 'requests', 'reads')),
      at(r, 'capped', 'error') === undefined
        ? fig(at(r, 'capped', 'sweepMs'))
        : `failed: ${String(at(r, 'capped', 'error'))}`,
      fig(at(r, 'capped', 'peakRssMiB')),
    ]),
  };
}

function ceilingSection(f: Tree): Section[] {
  if (!f.ceiling) return [];
  const v = at(f, 'ceiling', 'verdict') as Tree | undefined;
  const cores = (r: Tree, p: string) => fig(at(r, 'cores', p));
  return [
    {
      title: `Ceiling of one function process: module results drive the steps (runs of ${num(at(f, 'ceiling', 'modulesPerRun'))} modules, pods never scheduled); target ≥ 300 transitions/s`,
      head: [
        'senders',
        'transitions/s',
        'reply p50 ms',
        'p99',
        'fn CPU',
        'apiserver',
        'etcd',
        'ctrl-mgr',
        'scheduler',
        'kwok',
        'machine busy',
        'API req/s',
        '429s',
        'loop p99 ms',
        'fn RSS MiB',
        'fn requests per transition',
        'fn API calls per transition',
      ],
      rows: list(at(f, 'ceiling', 'levels')).map((r) => [
        String(num(r.senders)),
        fig(r.transitionsPerSecond),
        fig(at(r, 'replyMs', 'p50')),
        fig(at(r, 'replyMs', 'p99')),
        cores(r, 'function'),
        cores(r, 'kube-apiserver'),
        cores(r, 'etcd'),
        cores(r, 'kube-controller-manager'),
        cores(r, 'kube-scheduler'),
        cores(r, 'kwok'),
        fig(r.machineBusyCores),
        fig(r.apiserverRequestsPerSecond),
        fig(r.apiserver429),
        fig(r.eventLoopDelayP99Ms),
        fig(r.functionRssMiB),
        fig(r.functionRequestsPerTransition),
        fig(r.functionApiCallsPerTransition),
      ]),
    },
    ...(v
      ? [
          {
            title:
              "Where it saturates (the last two columns extrapolate: the function's CPU per transition, and what one core to itself would carry)",
            head: ['transitions/s', 'limit', 'evidence', 'fn CPU ms per transition', "one core's ceiling /s (≥ 300)"],
            rows: [
              [
                fig(v.transitionsPerSecond),
                String(v.limit),
                String(v.evidence),
                fig(v.functionCpuMsPerTransition),
                fig(v.functionCeilingPerSecond),
              ],
            ],
          },
        ]
      : []),
    ...transitionFloorSection(f, v),
  ];
}

/** With the events phase's floors too: what the runtime's requests in and bare API calls out leave one process, at the best level's counts. */
function transitionFloorSection(f: Tree, v: Tree | undefined): Section[] {
  const best = list(at(f, 'ceiling', 'levels')).find((l) => num(l.senders) === num(v?.atSenders));
  const requests = num(best?.functionRequestsPerTransition);
  const calls = num(best?.functionApiCallsPerTransition);
  const runtime = num(list(at(f, 'eventPath', 'floors')).find((r) => r.server === 'faas-js-runtime')?.cpuUsPerEvent);
  const apiCall = num(at(f, 'ceiling', 'apiCallFloor', 'cpuUsPerCall'));
  if (requests === undefined || calls === undefined || runtime === undefined || apiCall === undefined) return [];
  const b = transitionFloor({
    runtimeUsPerRequest: runtime,
    requestsPerTransition: requests,
    apiCallUs: apiCall,
    apiCallsPerTransition: calls,
  });
  return [
    {
      title:
        "The floor of a transition in one process, before Cascade decides anything: faas-js-runtime serving a function that does nothing (events phase) per request in, a bare Node.js process per API call out (ceiling phase), at the best level's counts",
      head: [
        'runtime µs per request',
        'requests per transition',
        'µs per API call',
        'API calls per transition',
        'ms per transition',
        'transitions/s at most (target ≥ 300)',
      ],
      rows: [[fig(runtime), fig(requests), fig(apiCall), fig(calls), fig(b.msPerTransition), fig(b.perSecond)]],
    },
  ];
}

function eventPathSection(f: Tree): Section | undefined {
  if (!f.eventPath) return undefined;
  const e = f.eventPath as Tree;
  const row = (name: string, r: Tree) => [
    name,
    fig(r.events),
    fig(r.refused),
    fig(r.cpuUsPerEvent),
    fig(r.mainThreadUsPerEvent),
  ];
  return {
    title: `CPU per change event that moves nothing (a running Job's add and update, a run's status update; ${Math.round((num(e.jobShare) ?? 0) * 100)} % of them Jobs of ${fig(e.jobBytes)} bytes, the rest runs of ${fig(e.runBytes)}; no API call): the function, then servers that do nothing with the same events (the floor)`,
    head: ['server', 'requests', 'refused', 'CPU µs per request', 'main thread µs'],
    rows: [row('the function', e), ...list(e.floors).map((r) => row(String(r.server), r))],
  };
}

function exactSection(f: Tree): Section | undefined {
  if (!f.exact) return undefined;
  const e = f.exact as Tree;
  return {
    title: 'Runs in flight at once, each to its end: counters must equal the runs sent',
    head: [
      'runs sent',
      'most active at once',
      'send s',
      'released → all counted s',
      'all counted s',
      'retried',
      'fn RSS MiB',
      'check',
    ],
    rows: [
      [
        fig(e.runsSent),
        fig(e.maxActive),
        fig(e.sendSeconds),
        fig(e.releasedSeconds),
        fig(e.seconds),
        fig(e.retried),
        fig(e.functionMaxRssMiB),
        String(e.check),
      ],
    ],
  };
}

/** The ui phase: the first screen of every run, then a burst of changes (bench/ui-scale.ts). */
function uiSections(f: Tree): Section[] {
  if (!f.ui) return [];
  const u = f.ui as Tree;
  const page = (name: string, p: unknown): Cell[] => [
    name,
    fig(at(p, 'ms')),
    fig(at(p, 'seenMs')),
    fig(at(p, 'scriptMs')),
    fig(at(p, 'streamMs')),
    fig(at(p, 'busyUntilMs')),
  ];
  const first: Section = {
    title: `The web view at scale: ${fig(u.runs)} runs, made in ${formatCell(fig(u.makeSeconds))} s (${formatCell(fig(u.makeRunsPerSecond))}/s); first screen = navigation → 100 rows and the count of all drawn, timed in the page (ms, target < 1000)`,
    head: ['page', 'first screen', 'seen by the bench', 'script in', "stream's first message", 'busy until'],
    rows: [
      [
        `opened as the server starts; its list of every run took ${formatCell(fig(u.serverListMs))}`,
        undefined,
        fig(u.coldFirstScreenMs),
      ],
      page('  the same page, from its navigation', u.coldPage),
      ...list(u.freshPages).map((p, i) => page(`fresh page ${i + 1}`, p)),
      ['median of the fresh pages', fig(u.firstScreenMs)],
    ],
  };
  const b = (u.burst ?? {}) as Tree;
  const burst: Section = {
    title: 'The web view at scale: a burst of run changes while the page filters on Running',
    head: ['changes', 'sent in ms', 'all shown, ms after the last', 'frames', 'longest frame gap ms'],
    rows: [[fig(b.changes), fig(b.sentMs), fig(b.shownAfterLastMs), fig(b.frames), fig(b.longestFrameGapMs)]],
  };
  return [first, burst];
}

export function report(figures: Tree, machine: Tree, settings: Tree): Section[] {
  const head: Section = {
    title: 'Machine',
    head: ['cores', 'Node', 'Kubernetes', 'load avg (start → end)', 'pod delay ms', 'quick', 'repeat'],
    rows: [
      [
        fig(machine.cores),
        String(machine.node),
        String(machine.kubernetes),
        `${(machine.loadAverageAtStart as number[]).map((x) => x.toFixed(2)).join(' ')} → ${(machine.loadAverageAtEnd as number[]).map((x) => x.toFixed(2)).join(' ')}`,
        fig(settings.podDelayMs),
        String(settings.quick),
        fig(settings.repeat),
      ],
    ],
  };
  return [
    head,
    transitions(figures),
    e2e(figures),
    ...cost(figures),
    tp(figures),
    ...cold(figures),
    memory(figures),
    ...ceilingSection(figures),
    eventPathSection(figures),
    exactSection(figures),
    janitor(figures),
    deadSink(figures),
    sustainedSection(figures),
    replicasSection(figures),
    jobPathSection(figures),
    ...uiSections(figures),
    cliSpeedSection(figures),
  ].filter((s): s is Section => s !== undefined);
}
