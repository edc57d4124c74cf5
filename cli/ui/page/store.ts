// What the page knows: the runs and scenarios from the event stream, kept up
// to date by its changes. Views subscribe; a burst of changes redraws once
// per animation frame, so 1,000 changes do not freeze the page.
import type { Changes, RunSummary, ScenarioSummary, Snapshot, SnapshotRest } from '../protocol.ts';

export class PageStore {
  readonly runs = new Map<string, RunSummary>();
  readonly scenarios = new Map<string, ScenarioSummary>();
  errors: string[] = [];
  scope: Snapshot['scope'] = { allNamespaces: false };
  connected = false;
  loaded = false;
  /** How many runs there are: more than `runs` holds until the snapshot's rest is in. */
  total = 0;
  /** Counts each change to `runs`: a view keeps what it computed from them until it moves. */
  version = 0;
  /** Changes that came before the snapshot's rest: applied after it, in order. */
  private pending: Changes[] = [];
  /** Runs changed since the views last drew. */
  private changed = new Set<string>();
  private listeners = new Set<(changed: ReadonlySet<string>) => void>();
  private scheduled = false;

  snapshot(s: Snapshot): void {
    this.pending = [];
    this.runs.clear();
    this.scenarios.clear();
    for (const r of s.runs) this.runs.set(r.key, r);
    for (const c of s.scenarios) this.scenarios.set(c.key, c);
    this.errors = s.errors;
    this.scope = s.scope;
    this.loaded = true;
    this.total = s.total;
    this.version++;
    for (const r of s.runs) this.changed.add(r.key);
    this.schedule();
  }

  /** Every run is in: the snapshot's first screen and its rest. */
  get complete(): boolean {
    return this.runs.size >= this.total;
  }

  rest(r: SnapshotRest): void {
    for (const run of r.runs) this.runs.set(run.key, run);
    this.total = this.runs.size;
    this.version++;
    for (const run of r.runs) this.changed.add(run.key);
    const pending = this.pending;
    this.pending = [];
    for (const c of pending) this.apply(c);
    this.schedule();
  }

  apply(c: Changes): void {
    if (!this.complete) {
      this.pending.push(c);
      return;
    }
    for (const r of c.runs) this.runs.set(r.key, r);
    for (const k of c.deletedRuns) this.runs.delete(k);
    for (const s of c.scenarios) this.scenarios.set(s.key, s);
    for (const k of c.deletedScenarios) this.scenarios.delete(k);
    this.errors = c.errors;
    this.total = this.runs.size;
    this.version++;
    for (const r of c.runs) this.changed.add(r.key);
    for (const k of c.deletedRuns) this.changed.add(k);
    this.schedule();
  }

  setConnected(on: boolean): void {
    this.connected = on;
    this.schedule();
  }

  /** Calls `fn` after each redraw-worthy change, with the keys of the runs that changed; returns the unsubscribe. */
  subscribe(fn: (changed: ReadonlySet<string>) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      const changed = this.changed;
      this.changed = new Set();
      for (const fn of this.listeners) fn(changed);
    });
  }
}
