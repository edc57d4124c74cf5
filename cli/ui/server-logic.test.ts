import { describe, expect, it } from 'vitest';
import type { RunObject } from '../runs/run-object.ts';
import { listenError, uiSettings } from './options.ts';
import { newestFirst, newestOf, type RunSummary } from './protocol.ts';
import { matchRoute } from './routes.ts';
import { allowedHosts, hostAllowed, originAllowed, tokenMatches } from './security.ts';
import { UiState } from './state.ts';

const run = (name: string, phase?: string, rv = '1'): RunObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { pid: `iuid-${name}`, scenarioname: 'scn', modules: ['a', 'b'] },
  status: phase ? { phase, currentStep: 1, currentModule: 'b', startTime: '2026-01-01T00:00:01Z' } : undefined,
});

describe('the Host and Origin checks', () => {
  const hosts = allowedHosts('127.0.0.1', 7080);
  it.each([
    ['127.0.0.1:7080', true],
    ['localhost:7080', true],
    ['LOCALHOST:7080', true],
    ['[::1]:7080', true],
    ['127.0.0.1:7081', false],
    ['127.0.0.1', false],
    ['evil.example:7080', false],
    ['127.0.0.1.nip.io:7080', false],
    [undefined, false],
  ])('Host %s: %s', (host, ok) => {
    expect(hostAllowed(host, hosts)).toBe(ok);
  });
  it('a non-loopback address answers its own name only', () => {
    expect([...allowedHosts('192.168.1.5', 80)]).toEqual(['192.168.1.5:80']);
  });
  it.each([
    [undefined, true],
    ['http://127.0.0.1:7080', true],
    ['https://127.0.0.1:7080', false],
    ['http://evil.example', false],
    ['null', false],
  ])('Origin %s: %s', (origin, ok) => {
    expect(originAllowed(origin, hosts)).toBe(ok);
  });
  it('the token must match exactly', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches('ab', 'abc')).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
  });
});

describe('matchRoute', () => {
  it.each([
    ['GET', '/', { kind: 'page' }],
    ['GET', '/runs', { kind: 'page' }],
    ['GET', '/runs/ns/r-1', { kind: 'page' }],
    ['GET', '/scenarios/ns/s', { kind: 'page' }],
    ['GET', '/app.js', { kind: 'asset', file: 'app.js' }],
    ['GET', '/api/runs', { kind: 'runs' }],
    ['GET', '/api/stream', { kind: 'stream' }],
    ['GET', '/api/runs/ns/r-1', { kind: 'run', namespace: 'ns', name: 'r-1' }],
    ['GET', '/api/runs/ns/r-1/logs', { kind: 'logs', namespace: 'ns', name: 'r-1' }],
    ['GET', '/api/scenarios/ns/s', { kind: 'scenario', namespace: 'ns', name: 's' }],
    ['POST', '/api/runs/ns/r-1/cancel', { kind: 'action', action: 'cancel', namespace: 'ns', name: 'r-1' }],
    ['POST', '/api/runs/ns/r-1/resume', { kind: 'action', action: 'resume', namespace: 'ns', name: 'r-1' }],
  ])('%s %s', (method, path, route) => {
    expect(matchRoute(method, path)).toEqual({ route });
  });
  it.each([
    ['GET', '/api/runs/NS/x', 404],
    ['GET', '/api/runs/ns/..%2Fx', 404],
    ['GET', '/runs/ns/a/b', 404],
    ['GET', '/api/runs/ns/r/delete', 404],
    ['POST', '/api/runs/ns/r/delete', 404],
    ['GET', '/api/runs/ns/r/cancel', 405],
    ['POST', '/api/runs', 405],
    ['PUT', '/', 405],
  ])('%s %s: %d', (method, path, status) => {
    expect(matchRoute(method, path)).toEqual({ status });
  });
});

describe('uiSettings', () => {
  it('defaults to loopback on 7080', () => {
    expect(uiSettings({})).toEqual({ port: 7080, address: '127.0.0.1', open: false, allNamespaces: false });
  });
  it('warns on an address that is not loopback, refuses what is no address or port', () => {
    expect(uiSettings({ address: '0.0.0.0', port: '0' }).warning).toMatch(/not loopback/);
    expect(() => uiSettings({ port: '70000' })).toThrow(/--port 70000: not a port/);
    expect(() => uiSettings({ port: '8x' })).toThrow(/not a port/);
    expect(() => uiSettings({ address: 'example.com' })).toThrow(/not an IP address/);
  });
});

describe('listenError', () => {
  it('names the port in use and what to do; other errors pass as they are', () => {
    const at = { address: '127.0.0.1', port: 7080 };
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect((listenError(inUse, at) as Error).message).toBe(
      'port 7080 is in use on 127.0.0.1: give another with --port, or --port 0 for any free one',
    );
    const other = new Error('boom');
    expect(listenError(other, at)).toBe(other);
  });
});

describe('UiState', () => {
  it('gathers changes until taken: a burst on one run is one summary, the latest', () => {
    const s = new UiState();
    s.upsertRun(run('a'));
    s.upsertRun(run('b'));
    expect(s.takeChanges()?.runs.map((r) => r.name)).toEqual(['a', 'b']);
    expect(s.takeChanges()).toBeUndefined();
    for (let i = 2; i < 50; i++) s.upsertRun(run('a', 'Running', String(i)));
    const changes = s.takeChanges()!;
    expect(changes.runs).toHaveLength(1);
    expect(changes.runs[0]).toMatchObject({ name: 'a', phase: 'Running', step: 2, steps: 2, resourceVersion: '49' });
  });
  it('a delete (after 410 Gone, the informer tells what vanished) removes the run; a delete of the unknown is nothing', () => {
    const s = new UiState();
    s.upsertRun(run('a'));
    s.upsertRun(run('b'));
    s.takeChanges();
    s.upsertRun(run('b', 'Succeeded', '5'));
    s.removeRun(run('a'));
    s.removeRun(run('zzz'));
    expect(s.takeChanges()).toMatchObject({ deletedRuns: ['ns/a'], runs: [{ name: 'b', phase: 'Succeeded' }] });
    expect([...s.runSummaries.keys()]).toEqual(['ns/b']);
  });
  it('drops managedFields, and tells run listeners of each change', () => {
    const s = new UiState();
    const seen: string[] = [];
    const stop = s.onRun((r) => seen.push(r.metadata.resourceVersion!));
    s.upsertRun({ ...run('a'), metadata: { ...run('a').metadata, managedFields: [{}] } as RunObject['metadata'] });
    stop();
    s.upsertRun(run('a', 'Running', '2'));
    expect(seen).toEqual(['1']);
    expect('managedFields' in s.runs.get('ns/a')!.metadata).toBe(false);
  });
  it('an error is sent once when it comes and once when it goes', () => {
    const s = new UiState();
    s.setError('runs', 'runs: Forbidden');
    expect(s.takeChanges()?.errors).toEqual(['runs: Forbidden']);
    s.setError('runs', 'runs: Forbidden');
    expect(s.takeChanges()).toBeUndefined();
    s.setError('runs', undefined);
    expect(s.takeChanges()?.errors).toEqual([]);
  });
  it('sends each run as its summary JSON, made again after the run changes; skips those asked', () => {
    const s = new UiState();
    s.upsertRun(run('a'));
    s.upsertRun(run('b'));
    const parse = (text: string) => JSON.parse(text) as RunSummary[];
    expect(parse(s.runsJson())).toEqual([...s.runSummaries.values()]);
    s.upsertRun(run('a', 'Running', '2'));
    s.removeRun(run('b'));
    expect(parse(s.runsJson()).map((r) => [r.name, r.phase])).toEqual([['a', 'Running']]);
    s.upsertRun(run('c'));
    expect(parse(s.runsJson(new Set(['ns/a']))).map((r) => r.name)).toEqual(['c']);
  });
});

describe('newestOf', () => {
  it('gives the n newest, newest first, as a sort of them all would', () => {
    const summary = (i: number): RunSummary => ({
      key: `ns/r-${i}`,
      namespace: 'ns',
      name: `r-${i}`,
      scenario: 's',
      iuid: '',
      phase: 'Succeeded',
      step: 1,
      steps: 1,
      module: '',
      reason: '',
      // Some runs share a creation time: the name orders them.
      created: new Date(Date.UTC(2026, 0, 1, 0, 0, (i * 7919) % 500)).toISOString(),
      resourceVersion: '1',
    });
    const runs = Array.from({ length: 1000 }, (_, i) => summary(i));
    const sorted = [...runs].sort(newestFirst);
    expect(newestOf(runs, 100)).toEqual(sorted.slice(0, 100));
    expect(newestOf(runs.slice(0, 30), 100)).toEqual(sorted.filter((r) => runs.indexOf(r) < 30));
    expect(newestOf([], 100)).toEqual([]);
  });
});
