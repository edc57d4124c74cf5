// Runs before `npm start` and `npm test` with whatever Node.js the machine
// has (so plain JavaScript, no TypeScript): installs the locked dependencies,
// among them the `node` package that brings Node.js 24 into
// node_modules/.bin, when they are missing or older than package-lock.json.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync('package-lock.json').mtimeMs;
if (stale || !existsSync('node_modules/.bin/node')) {
  // `npm install` with the committed lock, not `npm ci`: vite names an optional
  // dependency the registry does not serve, which `npm ci` refuses as a lock
  // out of sync while `npm install` skips it, leaving the lock unchanged.
  console.error('cascade: installing dependencies (npm install, from package-lock.json)');
  execFileSync('npm', ['install', '--no-fund', '--no-audit'], { stdio: 'inherit' });
}
