// Writes build/build-info.json (tag, hash, date) for /healthz after
// `tsc -p tsconfig.build.json`, from git when there is one, as the Go
// controller's Makefile set them with ldflags.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

const git = (...args) => {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
};
const info = {
  tag: process.env.BUILD_TAG || git('describe', '--tags', '--always') || 'dev',
  hash: process.env.BUILD_HASH || git('rev-parse', 'HEAD') || 'unknown',
  date: process.env.BUILD_DATE || new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
};
mkdirSync('build', { recursive: true });
writeFileSync('build/build-info.json', `${JSON.stringify(info)}\n`);
console.log(`build/build-info.json: ${JSON.stringify(info)}`);
