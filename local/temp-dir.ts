// Temporary directories of a test or bench process (kubeconfigs holding a
// ServiceAccount's token, scenario files). They are removed when the process
// exits, or sooner by removeTempDirs(). The test set-up calls it after each
// test file, because vitest ends its workers without their exit handlers.
// Left behind, a thousand of them would pile up in /tmp at every run of the suite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made = new Set<string>();
let atExit = false;

/** Removes every directory tempDir made in this process so far. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}

/** A new directory under the system's temporary directory, removed at this process's exit. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (!atExit) process.once('exit', removeTempDirs);
  atExit = true;
  made.add(dir);
  return dir;
}
