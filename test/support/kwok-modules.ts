// Modules whose pods kwok runs (local/cluster/stages): the annotation sets how
// long a pod runs, the label makes it fail. For the tests, the benchmarks and
// the demo scenario of `npm run start:process`.
import type { CascadeModule } from '../../shared/api/scenario.ts';

export const KWOK_DELAY = 'cascade.cascade.net/kwok-delay-ms';
export const KWOK_FAIL = 'cascade.cascade.net/kwok-fail';

export function imageModule(
  modulename: string,
  configuration: Record<string, string>,
  opts: { delayMs?: number; fail?: boolean } = {},
): CascadeModule {
  return {
    modulename,
    configuration,
    backoffLimit: 0,
    template: {
      metadata: {
        annotations: { [KWOK_DELAY]: String(opts.delayMs ?? 0) },
        ...(opts.fail ? { labels: { [KWOK_FAIL]: 'true' } } : {}),
      },
      spec: {
        containers: [
          { name: modulename, image: `registry.example/${modulename}:0.1.1`, imagePullPolicy: 'IfNotPresent' },
        ],
        restartPolicy: 'Never',
      },
    },
  };
}
