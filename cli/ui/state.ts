// What the ui knows of the cluster: the runs and scenarios its watches keep,
// their summaries, and the changes not yet sent to the pages. The watches
// write here; the server reads and takes the changes every 100 ms, so a burst
// of changes to one run is one message. Pure: no I/O, no timers.
import type { RunObject } from '../runs/run-object.ts';
import { runKey, type Changes, type RunSummary, type ScenarioSummary } from './protocol.ts';
import { runSummary, scenarioSummary, type OperatorObject } from './summary.ts';

type Keyed = { metadata: { name?: string; namespace?: string } };
const keyOf = (o: Keyed) => runKey(o.metadata.namespace ?? '', o.metadata.name ?? '');

/** managedFields are of no use to the page, and are most of an object's size. */
function slim<T extends { metadata: object }>(o: T): T {
  const metadata = { ...o.metadata } as { managedFields?: unknown };
  delete metadata.managedFields;
  return { ...o, metadata } as T;
}

export class UiState {
  readonly runs = new Map<string, RunObject>();
  readonly runSummaries = new Map<string, RunSummary>();
  readonly operators = new Map<string, OperatorObject>();
  readonly errors = new Map<'runs' | 'scenarios', string>();
  private changedRuns = new Set<string>();
  private deletedRuns = new Set<string>();
  private changedScenarios = new Set<string>();
  private deletedScenarios = new Set<string>();
  private errorsChanged = false;
  /** Each run summary's JSON, made when first sent and dropped when the run changes: a snapshot joins them. */
  private readonly runJson = new Map<string, string>();
  private readonly runListeners = new Set<(run: RunObject) => void>();

  upsertRun(obj: RunObject): void {
    const run = slim(obj);
    const key = keyOf(run);
    this.runs.set(key, run);
    this.runSummaries.set(key, runSummary(run));
    this.runJson.delete(key);
    this.changedRuns.add(key);
    this.deletedRuns.delete(key);
    for (const fn of this.runListeners) fn(run);
  }

  removeRun(obj: Keyed): void {
    const key = keyOf(obj);
    if (!this.runs.delete(key)) return;
    this.runSummaries.delete(key);
    this.runJson.delete(key);
    this.changedRuns.delete(key);
    this.deletedRuns.add(key);
  }

  upsertOperator(obj: OperatorObject): void {
    const key = keyOf(obj);
    this.operators.set(key, slim(obj));
    this.changedScenarios.add(key);
    this.deletedScenarios.delete(key);
  }

  removeOperator(obj: Keyed): void {
    const key = keyOf(obj);
    if (!this.operators.delete(key)) return;
    this.changedScenarios.delete(key);
    this.deletedScenarios.add(key);
  }

  setError(what: 'runs' | 'scenarios', message: string | undefined): void {
    if (this.errors.get(what) === message) return;
    if (message === undefined) this.errors.delete(what);
    else this.errors.set(what, message);
    this.errorsChanged = true;
  }

  /** The JSON array of every run's summary, but those in `skip`. */
  runsJson(skip: ReadonlySet<string> = new Set()): string {
    const parts: string[] = [];
    for (const [key, summary] of this.runSummaries) {
      if (skip.has(key)) continue;
      let text = this.runJson.get(key);
      if (text === undefined) this.runJson.set(key, (text = JSON.stringify(summary)));
      parts.push(text);
    }
    return `[${parts.join(',')}]`;
  }

  scenarios(): ScenarioSummary[] {
    return [...this.operators.values()].map(scenarioSummary);
  }

  /** Calls `fn` with each run that changes from now on; the returned function stops it. */
  onRun(fn: (run: RunObject) => void): () => void {
    this.runListeners.add(fn);
    return () => this.runListeners.delete(fn);
  }

  /** What changed since the last call, or undefined when nothing did. */
  takeChanges(): Changes | undefined {
    const empty =
      !this.errorsChanged &&
      this.changedRuns.size + this.deletedRuns.size + this.changedScenarios.size + this.deletedScenarios.size === 0;
    if (empty) return undefined;
    const changes: Changes = {
      runs: [...this.changedRuns].map((k) => this.runSummaries.get(k)!),
      deletedRuns: [...this.deletedRuns],
      scenarios: [...this.changedScenarios].map((k) => scenarioSummary(this.operators.get(k)!)),
      deletedScenarios: [...this.deletedScenarios],
      errors: [...this.errors.values()],
    };
    this.changedRuns.clear();
    this.deletedRuns.clear();
    this.changedScenarios.clear();
    this.deletedScenarios.clear();
    this.errorsChanged = false;
    return changes;
  }
}
