// Cascade's /metrics on its own port: faas-js-runtime's /metrics serves only
// the runtime's private registry. scenario_current_runs and cascade_queued_runs
// are read from the CascadeRuns in the API server at scrape time, at most every
// 5 s. So they are true whichever replica asks, and they survive scale to zero.
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { isTerminalPhase } from '../../shared/api/cascade-run.ts';
import type { CascadeMetrics } from '../../shared/metrics.ts';
import type { Store } from '../../shared/kube/store.ts';

export function startMetricsServer(port: number, metrics: CascadeMetrics, store: Store, log: Logger): Server {
  let refreshed = 0;
  const refresh = async () => {
    if (Date.now() - refreshed < 5000) return;
    refreshed = Date.now();
    const runs = await store.listRuns();
    const inFlight = runs.filter((r) => !isTerminalPhase(r.status?.phase));
    metrics.setCurrent(inFlight.filter((r) => r.status?.phase !== 'Queued').map((r) => r.spec));
    metrics.setQueued(inFlight.filter((r) => r.status?.phase === 'Queued').map((r) => r.spec));
  };
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    refresh()
      .catch((error) => log.warn({ err: error }, 'scenario_current_runs not refreshed'))
      .then(() => metrics.registry.metrics())
      .then((text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text))
      .catch((error) => res.writeHead(500).end(String(error)));
  });
  server.on('error', (error) => log.error({ err: error, port }, 'metrics server failed'));
  server.listen(port);
  return server;
}
