// The image's recipe agrees with the rest of the repository: its command is
// the Procfile's and `npm run start:function`, the CronJob runs the janitor
// the Procfile names, the run stage keeps every production package, the user
// is numeric and not root, and the Node.js binary of package.json's `node` has
// a pinned SHA-256. The stages run for real in test/production-build.test.ts
// and test/dist.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load as parseYaml } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { Lockfile } from '../../scripts/lockfile.ts';
import { BUILD_STAGE, buildInfo, IMAGE_RUN, imageCommand, RUN_STAGE } from './image-stages.ts';
import { NODE_BINARY_SHA256, pinnedNodeVersion } from './node-binary.ts';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
const procfile = Object.fromEntries(
  read('Procfile')
    .trim()
    .split('\n')
    .map((l) => [
      l.slice(0, l.indexOf(':')),
      l
        .slice(l.indexOf(':') + 1)
        .trim()
        .split(' '),
    ]),
);
const ignoreLines = (path: string) =>
  read(path)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

describe("the function image's recipe", () => {
  it('builds with every dependency from the lock, then runs with the production ones only', () => {
    expect(BUILD_STAGE).toEqual(['npm ci --no-audit --no-fund', 'npm run build']);
    expect(pkg.scripts.build).toMatch(/^tsc -p tsconfig\.build\.json /);
    expect(RUN_STAGE).toEqual(['npm ci --omit=dev --omit=optional --no-audit --no-fund']);
  });

  it('drops no production package with --omit=optional: the only optional ones are dev dependencies too', () => {
    const lock = JSON.parse(read('package-lock.json')) as Lockfile;
    const entries = Object.entries(lock.packages) as [string, { dev?: boolean; optional?: boolean }][];
    expect(entries.filter(([key, e]) => key && !e.dev && e.optional).map(([key]) => key)).toEqual([]);
  });

  it('starts the entry the Procfile and `npm run start:function` start; the CronJob runs the janitor the Procfile names', () => {
    expect(imageCommand(root)).toEqual(procfile.web);
    expect(pkg.scripts['start:function']).toBe('node --max-semi-space-size=4 build/functions/cascade/server.cjs');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
    const cronJob = parseYaml(read('knative/janitor-cronjob.yaml')) as any;
    expect(cronJob.spec.jobTemplate.spec.template.spec.containers[0].command).toEqual(procfile.janitor);
    expect(procfile.janitor).toEqual(pkg.scripts['start:janitor']!.split(' '));
  });

  it('runs in /app as a numeric non-root user, the one the manifests run as, with NODE_ENV=production', () => {
    expect(IMAGE_RUN).toMatchObject({ workdir: '/app', env: { NODE_ENV: 'production' } });
    expect(IMAGE_RUN.uid).toBeGreaterThan(0);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
    const service = parseYaml(read('knative/service.yaml')) as any;
    expect(service.spec.template.spec.containers[0].securityContext).toMatchObject({
      runAsUser: IMAGE_RUN.uid,
      runAsGroup: IMAGE_RUN.gid,
    });
  });

  it('pins the SHA-256 of the Node.js 24 binary of package.json `node`', () => {
    const version = pinnedNodeVersion(root);
    expect(version).toMatch(/^24\.\d+\.\d+$/);
    expect(NODE_BINARY_SHA256[version]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names the build by git, or by BUILD_* and SOURCE_DATE_EPOCH: one identity for one commit, whenever it is built', () => {
    expect(buildInfo(root, { BUILD_TAG: 'v1.2.3', BUILD_HASH: 'abc', BUILD_DATE: '2026-01-02T03:04:05Z' })).toEqual({
      tag: 'v1.2.3',
      hash: 'abc',
      date: '2026-01-02T03:04:05Z',
    });
    expect(buildInfo(root, { SOURCE_DATE_EPOCH: '86400' }).date).toBe('1970-01-02T00:00:00Z');
    const info = buildInfo(root, {});
    expect(info.hash).toMatch(/^[0-9a-f]{40}$/);
    expect(info.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(buildInfo(root, {})).toEqual(info);
  });
});

describe('.funcignore', () => {
  it("keeps local state, secrets, tooling and dist/ out of func's build", () => {
    expect(ignoreLines('.funcignore')).toEqual(
      expect.arrayContaining([
        'node_modules',
        '.cascade',
        '/build',
        '/dist',
        '/test',
        '/bench',
        '/local',
        '*.kubeconfig',
        '*.key',
      ]),
    );
  });
});
