// `npm test`'s last step: the STREAMS of streams.ts, side by side. Each
// line they print is prefixed with the stream's name. Their JSON reports
// land in .cascade/vitest-<stream>.json, and one made of both in
// .cascade/vitest.json. Exits 1 when a stream failed; Ctrl-C and SIGTERM
// reach both.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { mergeReports, prefixed, STREAMS, vitestArgs, type Stream, type VitestReport } from './streams.ts';

const root = join(import.meta.dirname, '..', '..');
const reports = join(root, '.cascade');
const vitest = join(root, 'node_modules', '.bin', 'vitest');

if (process.argv.length > 2) {
  process.stderr.write(
    'npm test takes no arguments: it runs the whole suite. For a part, `npx vitest run --project <name> [file]`.\n',
  );
  process.exit(2);
}

/** Runs `stream`; resolves to its exit code (1 when a signal ended it). */
function run(stream: Stream, reportFile: string): Promise<number> {
  const child = spawn(vitest, vitestArgs(stream, reportFile), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    createInterface({ input: from }).on('line', (line) => to.write(`${prefixed(stream, line)}\n`));
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

mkdirSync(reports, { recursive: true });
const files = STREAMS.map((stream) => join(reports, `vitest-${stream.name}.json`));
for (const file of [...files, join(reports, 'vitest.json')]) rmSync(file, { force: true });
const codes = await Promise.all(STREAMS.map((stream, i) => run(stream, files[i]!)));
const written = files.filter((file) => existsSync(file));
if (written.length > 0) {
  const merged = mergeReports(written.map((file) => JSON.parse(readFileSync(file, 'utf8')) as VitestReport));
  writeFileSync(join(reports, 'vitest.json'), JSON.stringify(merged));
}
STREAMS.forEach((stream, i) => process.stdout.write(`${prefixed(stream, `exit code ${codes[i]}`)}\n`));
process.exit(codes.every((code) => code === 0) && written.length === STREAMS.length ? 0 : 1);
