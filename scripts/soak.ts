// `npm run soak -- [--minutes N] [--rate R] [--stand-ins]`: the fault soak,
// run by vitest with its own configuration. By default it is
// test/soak/knative-soak.run.ts, on real Knative on the real node; with
// --stand-ins, test/soak/soak.run.ts, on the Broker and ApiServerSource
// stand-ins. It is not part of `npm test`: its default run takes minutes.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    rate: { type: 'string', default: '0.5' },
    'stand-ins': { type: 'boolean', default: false },
  },
});
for (const name of ['minutes', 'rate'] as const) {
  if (!(Number(values[name]) > 0)) {
    console.error(`soak: --${name} takes a positive number, not ${values[name]}`);
    process.exit(2);
  }
}
const config = values['stand-ins'] ? 'test/soak/vitest.config.ts' : 'test/soak/knative.vitest.config.ts';
const vitest = join(import.meta.dirname, '..', 'node_modules', '.bin', 'vitest');
const run = spawnSync(vitest, ['run', '--config', config], {
  stdio: 'inherit',
  env: { ...process.env, SOAK_MINUTES: values.minutes, SOAK_RATE: values.rate },
});
process.exit(run.status ?? 1);
