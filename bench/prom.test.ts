import { describe, expect, it } from 'vitest';
import { diffSamples, parseMetrics, perUnit, requestCounts, summarizeCost } from './prom.ts';

const BEFORE = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="batch",resource="jobs",scope="resource",subresource="",verb="POST",version="v1"} 10
apiserver_request_total{code="200",component="apiserver",dry_run="",group="batch",resource="jobs",scope="resource",subresource="status",verb="PUT",version="v1"} 4
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 7
process_cpu_seconds_total 12.5
`;

const AFTER = `apiserver_request_total{code="201",component="apiserver",dry_run="",group="batch",resource="jobs",scope="resource",subresource="",verb="POST",version="v1"} 13
apiserver_request_total{code="200",component="apiserver",dry_run="",group="batch",resource="jobs",scope="resource",subresource="status",verb="PUT",version="v1"} 6
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 9
apiserver_request_total{code="200",component="apiserver",dry_run="",group="cascade.cascade.net",resource="cascaderuns",scope="resource",subresource="status",verb="PUT",version="v1alpha1"} 6
apiserver_request_total{code="200",component="apiserver",dry_run="",group="cascade.cascade.net",resource="cascaderuns",scope="resource",subresource="",verb="GET",version="v1alpha1"} 9
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="batch",resource="jobs",scope="namespace",subresource="",verb="WATCH",version="v1"} 1
process_cpu_seconds_total 14
`;

describe('parseMetrics', () => {
  it('reads names, labels and values, skipping comments', () => {
    const s = parseMetrics(BEFORE);
    expect(s).toHaveLength(4);
    expect(s[0]).toMatchObject({ name: 'apiserver_request_total', value: 10 });
    expect(s[0]!.labels).toMatchObject({ resource: 'jobs', verb: 'POST', subresource: '' });
    expect(s[3]).toEqual({ name: 'process_cpu_seconds_total', labels: {}, value: 12.5 });
  });

  it('keeps only the named metric when asked', () => {
    expect(parseMetrics(BEFORE, 'process_').map((s) => s.name)).toEqual(['process_cpu_seconds_total']);
  });

  it('unescapes label values', () => {
    expect(parseMetrics('m{a="x\\"y"} 1')[0]!.labels).toEqual({ a: 'x"y' });
  });
});

describe('diffSamples', () => {
  it('subtracts series by their labels; new series count from zero; unchanged ones go', () => {
    const d = diffSamples(parseMetrics(BEFORE), parseMetrics(AFTER));
    const byKey = Object.fromEntries(
      d.map((s) => [`${s.labels.resource ?? s.name}/${s.labels.subresource ?? ''} ${s.labels.verb ?? ''}`, s.value]),
    );
    expect(byKey).toEqual({
      'jobs/ POST': 3,
      'jobs/status PUT': 2,
      'pods/ LIST': 2,
      'cascaderuns/status PUT': 6,
      'cascaderuns/ GET': 9,
      'events/ POST': 3,
      'jobs/ WATCH': 1,
      'process_cpu_seconds_total/ ': 1.5,
    });
  });
});

describe('requestCounts and summarizeCost', () => {
  const counts = requestCounts(diffSamples(parseMetrics(BEFORE), parseMetrics(AFTER)));

  it("keeps Cascade's resources only, by resource/subresource and verb", () => {
    expect(counts).toEqual([
      { resource: 'cascaderuns', verb: 'GET', count: 9 },
      { resource: 'cascaderuns/status', verb: 'PUT', count: 6 },
      { resource: 'events', verb: 'POST', count: 3 },
      { resource: 'jobs', verb: 'POST', count: 3 },
      { resource: 'jobs', verb: 'WATCH', count: 1 },
      { resource: 'jobs/status', verb: 'PUT', count: 2 },
    ]);
  });

  it("splits reads from writes, Events and the Job controller's writes aside", () => {
    const s = summarizeCost(counts);
    expect(s).toMatchObject({ reads: 9, writes: 14, cascadeWrites: 9, events: 3 });
    expect(s.byVerb).not.toHaveProperty('jobs WATCH');
    expect(perUnit(s, 3)).toMatchObject({
      reads: 3,
      cascadeWrites: 3,
      events: 1,
      byVerb: { 'cascaderuns/status PUT': 2 },
    });
  });
});
