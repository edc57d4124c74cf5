// `npm run soak -- [--minutes N] [--rate R]`: the fault soak of
// test/soak/soak.run.ts, run by vitest with its own configuration. It is
// not part of `npm test`: its default run takes a few minutes.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '3' }, rate: { type: 'string', default: '1' } },
});
for (const [name, value] of Object.entries(values)) {
  if (!(Number(value) > 0)) {
    console.error(`soak: --${name} takes a positive number, not ${value}`);
    process.exit(2);
  }
}
const vitest = join(import.meta.dirname, '..', 'node_modules', '.bin', 'vitest');
const run = spawnSync(vitest, ['run', '--config', 'test/soak/vitest.config.ts'], {
  stdio: 'inherit',
  env: { ...process.env, SOAK_MINUTES: values.minutes, SOAK_RATE: values.rate },
});
process.exit(run.status ?? 1);
