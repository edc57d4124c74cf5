// The Containerfile builds what the rest of the repository says the image is:
// Node.js of the version the tests run on, the compiled entries the Procfile,
// package.json and the CronJob name, production dependencies only, a non-root
// user, and a build context without local state. Its stages' commands are
// run for real in test/production-build.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load as parseYaml } from 'js-yaml';
import { ofKind, parseContainerfile } from './containerfile.ts';
import type { Lockfile } from './lockfile.ts';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
const file = parseContainerfile(read('Containerfile'));
const [build, runtime] = file.stages;
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

describe('parseContainerfile', () => {
  it('reads stages, global ARGs, continuations and the exec form of CMD', () => {
    const parsed = parseContainerfile(
      [
        '# comment',
        'ARG V=1.2',
        'FROM img:${V} AS one',
        'RUN a \\',
        '  && b',
        'ENV X=1 Y="two words"',
        'FROM img:${V}',
        'COPY --from=one /src/out out',
        'USER 1000:1000',
        'CMD ["node", "x.js"]',
      ].join('\n'),
    );
    expect(parsed.args).toEqual({ V: '1.2' });
    expect(parsed.stages).toEqual([
      {
        image: 'img:1.2',
        name: 'one',
        instructions: [
          { op: 'RUN', command: 'a && b' },
          { op: 'ENV', vars: { X: '1', Y: 'two words' } },
        ],
      },
      {
        image: 'img:1.2',
        instructions: [
          { op: 'COPY', from: 'one', sources: ['/src/out'], dest: 'out' },
          { op: 'USER', user: '1000:1000' },
          { op: 'CMD', argv: ['node', 'x.js'] },
        ],
      },
    ]);
  });

  it('refuses what it does not understand rather than skip it', () => {
    expect(() => parseContainerfile('FROM a\nVOLUME /x')).toThrow(/VOLUME is not understood/);
    expect(() => parseContainerfile('FROM a:${NOPE}')).toThrow(/NOPE.*not declared/);
    expect(() => parseContainerfile('FROM a\nCOPY --chown=1 a b')).toThrow(/not understood/);
  });
});

describe('Containerfile', () => {
  it('builds on the official Node.js image of the version the tests run on, pinned', () => {
    expect(file.stages).toHaveLength(2);
    expect(file.args.NODE_VERSION).toBe(pkg.devDependencies.node);
    expect(file.args.NODE_VERSION).toMatch(/^24\.\d+\.\d+$/);
    for (const stage of file.stages)
      expect(stage.image).toBe(`docker.io/library/node:${pkg.devDependencies.node}-slim`);
  });

  it('compiles in the build stage with every dependency installed from the lock', () => {
    expect(ofKind(build!, 'RUN').map((r) => r.command)).toEqual(['npm ci --no-audit --no-fund', 'npm run build']);
    expect(pkg.scripts.build).toMatch(/^tsc -p tsconfig\.build\.json /);
    for (const copy of ofKind(build!, 'COPY'))
      for (const source of copy.sources) expect(existsSync(join(root, source)), source).toBe(true);
  });

  it('runs with production dependencies and the compiled output only, as a numeric non-root user', () => {
    expect(ofKind(runtime!, 'RUN').map((r) => r.command)).toEqual([
      'npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force',
    ]);
    expect(ofKind(runtime!, 'COPY')).toEqual([
      { op: 'COPY', sources: ['package.json', 'package-lock.json'], dest: './' },
      { op: 'COPY', from: 'build', sources: ['/src/build'], dest: 'build' },
    ]);
    expect(ofKind(runtime!, 'ENV')).toEqual([{ op: 'ENV', vars: { NODE_ENV: 'production' } }]);
    const [user] = ofKind(runtime!, 'USER');
    expect(user?.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
  });

  it('starts the entry the Procfile and `npm run start:function` start; the CronJob runs the janitor the Procfile names', () => {
    const [cmd] = ofKind(runtime!, 'CMD');
    expect(cmd?.argv).toEqual(procfile.web);
    expect(cmd?.argv).toEqual(pkg.scripts['start:function']!.split(' '));
    expect(pkg.scripts['start:function']).toBe('node --max-semi-space-size=4 build/functions/cascade/server.cjs');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a YAML document read as it is
    const cronJob = parseYaml(read('knative/janitor-cronjob.yaml')) as any;
    expect(cronJob.spec.jobTemplate.spec.template.spec.containers[0].command).toEqual(procfile.janitor);
    expect(procfile.janitor).toEqual(pkg.scripts['start:janitor']!.split(' '));
    expect(procfile.janitor).toEqual(['node', 'build/functions/janitor/main.js']);
  });

  it('drops no production package with --omit=optional: the only optional ones are dev dependencies too', () => {
    const lock = JSON.parse(read('package-lock.json')) as Lockfile;
    const entries = Object.entries(lock.packages) as [
      string,
      { dev?: boolean; optional?: boolean; devOptional?: boolean },
    ][];
    const optionalInProduction = entries.filter(([key, e]) => key && !e.dev && e.optional).map(([key]) => key);
    expect(optionalInProduction).toEqual([]);
    expect(entries.filter(([, e]) => e.devOptional).map(([key]) => key)).toEqual(['node_modules/typescript']);
  });
});

describe('.funcignore and .dockerignore', () => {
  it('keep local state, secrets and tooling out of every build', () => {
    expect(ignoreLines('.funcignore')).toEqual(
      expect.arrayContaining([
        'node_modules',
        '.cascade',
        '/build',
        '/test',
        '/bench',
        '/local',
        '*.kubeconfig',
        '*.key',
      ]),
    );
    expect(ignoreLines('.dockerignore')).toEqual(
      expect.arrayContaining([
        '**/node_modules',
        '**/.cascade',
        'build',
        'test',
        'bench',
        'local',
        '**/*.kubeconfig',
        '**/*.key',
      ]),
    );
  });

  it('leave in what the build stage copies', () => {
    const ignored = new Set(ignoreLines('.dockerignore'));
    for (const copy of ofKind(build!, 'COPY')) {
      for (const source of copy.sources) expect(ignored.has(source.split('/')[0]!), source).toBe(false);
    }
  });
});
