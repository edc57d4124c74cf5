import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const module = join(import.meta.dirname, '..', 'local', 'temp-dir.ts');

describe('tempDir', () => {
  it('makes directories that exist while the process runs, and removes them when told and once it exits', () => {
    const script = `import { removeTempDirs, tempDir } from ${JSON.stringify(module)}; import { existsSync, writeFileSync } from 'node:fs';
const early = tempDir('cascade-test-early-');
removeTempDirs();
const a = tempDir('cascade-test-a-'); const b = tempDir('cascade-test-b-');
writeFileSync(a + '/kubeconfig', 'token');
console.log(JSON.stringify({ a, b, exist: existsSync(a + '/kubeconfig') && existsSync(b), early: existsSync(early) }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const { a, b, exist, early } = JSON.parse(run.stdout) as { a: string; b: string; exist: boolean; early: boolean };
    expect(early, 'removed by removeTempDirs').toBe(false);
    expect(exist, 'made since, still there while the process runs').toBe(true);
    expect([existsSync(a), existsSync(b)]).toEqual([false, false]);
  });
});
