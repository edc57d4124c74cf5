// Runs before `npm start` and `npm test` with whatever Node.js the machine
// has, so it is plain JavaScript, not TypeScript. It installs the locked
// dependencies when they are missing or older than package-lock.json. Among
// them is the `node` package that brings Node.js 24 into node_modules/.bin.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync('package-lock.json').mtimeMs;
if (stale || !existsSync('node_modules/.bin/node')) {
  // One line says what happens. The machine's Node.js may be older than the
  // engines of the dependencies (that is what the `node` package is for), so
  // npm's EBADENGINE warnings are expected: npm logs errors only.
  const running = process.versions.node.split('.')[0];
  console.error(
    `cascade: installing dependencies with Node.js ${running} (npm ci, from package-lock.json); Node.js 24 arrives with them as the npm package node@24`,
  );
  // `npm ci`, as func's buildpack, the image's build and a user's CI do: it
  // installs exactly the lock and refuses one that is out of step with
  // package.json, so such a lock fails here first (scripts/lockfile.test.ts
  // says what it lacks).
  execFileSync('npm', ['ci', '--no-fund', '--no-audit', '--loglevel=error'], { stdio: 'inherit' });
}
