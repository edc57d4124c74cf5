// Component processes: each runs in its own process group with its log in a
// file; their pids are recorded in the state dir so `down` (or the watchdog)
// can end them from another process.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

export interface RecordedProcess {
  name: string;
  pid: number;
}

export interface Component {
  name: string;
  child: ChildProcess;
  pid: number;
  logFile: string;
  /** Set once the process has exited. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

export class ComponentError extends Error {
  readonly component: string;
  constructor(component: string, reason: string, log: { file: string; tail: string }) {
    super(`cluster: ${component} ${reason}\n--- last lines of ${log.file} ---\n${log.tail}`);
    this.name = 'ComponentError';
    this.component = component;
  }
}

export async function logTail(file: string, lines = 30): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export function readPids(file: string): RecordedProcess[] {
  if (!existsSync(file)) return [];
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RecordedProcess[];
  } catch {
    return [];
  }
}

/** Adds the process; one started again under the same name takes the place (and order) of the old one. */
function recordPid(file: string, entry: RecordedProcess): void {
  const recorded = readPids(file);
  const at = recorded.findIndex((p) => p.name === entry.name);
  if (at === -1) recorded.push(entry);
  else recorded[at] = entry;
  writeFileSync(file, JSON.stringify(recorded, null, 2));
}

/** Starts `bin args` detached in a new process group, output appended to `logFile`. */
export function startProcess(
  name: string,
  command: { bin: string; args: string[]; env?: NodeJS.ProcessEnv },
  files: { logFile: string; pidsFile: string },
): Component {
  const fd = openSync(files.logFile, 'a');
  const child = spawn(command.bin, command.args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: command.env ?? process.env,
  });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`cluster: could not spawn ${name} (${command.bin})`);
  const component: Component = { name, child, pid: child.pid, logFile: files.logFile, exit: undefined };
  child.on('exit', (code, signal) => {
    component.exit = { code, signal };
  });
  child.on('error', () => {
    component.exit ??= { code: null, signal: null };
  });
  child.unref();
  recordPid(files.pidsFile, { name, pid: child.pid });
  return component;
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  }
}

async function stopGroups(processes: RecordedProcess[], graceMs: number): Promise<void> {
  for (const { pid } of processes) signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && processes.some((p) => isAlive(p.pid))) {
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const { pid } of processes) if (isAlive(pid)) signalGroup(pid, 'SIGKILL');
  // SIGKILL is not instant: wait until the kernel has ended each one, so a restart never meets it.
  while (processes.some((p) => isAlive(p.pid))) await new Promise((r) => setTimeout(r, 20));
}

/**
 * SIGTERM the process groups (SIGKILL what is left after `graceMs`): all but
 * the first recorded one (etcd, which the others depend on) first.
 */
export async function stopProcesses(processes: RecordedProcess[], graceMs = 5000): Promise<void> {
  const [first, ...rest] = processes;
  await stopGroups(rest, graceMs);
  if (first) await stopGroups([first], graceMs);
}

/** Synchronous SIGKILL of every group, for `process.on('exit')`. */
export function killProcessesNow(processes: RecordedProcess[]): void {
  for (const { pid } of processes) signalGroup(pid, 'SIGKILL');
}
