// The floor under the events phase's figure: the CPU per request of servers
// that do nothing with the same events (bench/floor-server.ts), driven the
// same way, one after the other. What faas-js-runtime costs per request with
// an empty function bounds what one process of the function can carry: a
// step transition brings the function several requests (the ceiling phase
// counts them), each at least that floor.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../local/cluster/paths.ts';
import { freePort, stopProcess } from '../local/stand-ins/function-process.ts';
import { imageNodeFlags } from '../scripts/image-flags.ts';
import { drive, type Sample } from './event-path.ts';
import { FLOOR_KINDS, type FloorKind } from './floor-server.ts';

export interface Floor {
  server: FloorKind;
  events: number;
  refused: number;
  cpuUsPerEvent: number;
  mainThreadUsPerEvent: number;
}

/** Starts a floor server (with the image's node flags and NODE_ENV); resolves once it serves. */
async function start(kind: FloorKind) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...imageNodeFlags(repoRoot), join(repoRoot, 'bench/floor-server.ts'), kind, String(port)],
    {
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((ok, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('listening')) ok();
    });
    child.once('exit', (code) => fail(new Error(`floor server ${kind} exited (${code}) before it served`)));
  });
  const stop = () => stopProcess(child, 'SIGKILL');
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid!, stop };
}

/** Each floor server in turn, driven with `mix` by `senders` for `windowMs`. */
export async function floors(mix: readonly Sample[], senders: number, windowMs: number): Promise<Floor[]> {
  const out: Floor[] = [];
  for (const server of FLOOR_KINDS) {
    const s = await start(server);
    try {
      const r = await drive(s.url, s.pid, mix, senders, windowMs);
      out.push({
        server,
        events: r.events,
        refused: r.refused,
        cpuUsPerEvent: r.cpuUsPerEvent,
        mainThreadUsPerEvent: r.mainThreadUsPerEvent,
      });
    } finally {
      await s.stop();
    }
  }
  return out;
}
