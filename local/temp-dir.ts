// Temporary directories of a test or bench process (kubeconfigs holding a
// ServiceAccount's token, scenario files), removed when the process exits, or
// sooner by removeTempDirs() (after each test file: vitest ends its workers
// without their exit handlers): left behind, every run of the suite added a
// thousand of them to /tmp.
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
