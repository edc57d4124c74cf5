// Writes crds/*.yaml from the valibot schemas in shared/api.
// `node scripts/gen-crds.ts --check` writes nothing and exits 1 when a file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateCrds, renderCrd } from '../shared/api/crds.ts';

const CRD_DIR = join(import.meta.dirname, '..', 'crds');

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

async function main(check: boolean): Promise<number> {
  let stale = 0;
  for (const { file, crd } of generateCrds()) {
    const path = join(CRD_DIR, file);
    const text = renderCrd(crd);
    if ((await readOrEmpty(path)) === text) continue;
    stale += 1;
    if (check) console.error(`stale: crds/${file} (run npm run gen:crds)`);
    else await writeFile(path, text);
    if (!check) console.log(`wrote crds/${file}`);
  }
  return check && stale > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.includes('--check'));
