import { describe, expect, it } from 'vitest';
import { cachedDigest, releaseKey, releasesToPrune, type ReleaseInputs } from './release-cache.ts';

const inputs: ReleaseInputs = {
  files: [
    { path: 'package.json', kind: 'f', sha256: '1'.repeat(64) },
    { path: 'cli/kubectl-cascade', kind: 'x', sha256: '2'.repeat(64) },
  ],
  build: { tag: 'v1.0.0-3-gabc1234', hash: 'abc1234'.padEnd(40, '0'), date: '2026-12-06T10:00:00Z' },
  repository: 'ghcr.io/cascade/cascade',
  node: 'v24.21.0',
  libraries: [{ path: '/lib/x86_64-linux-gnu/libc.so.6', sha256: '3'.repeat(64) }],
};

describe('the key a release is kept under', () => {
  const key = releaseKey(inputs);

  it('is the same for the same inputs, whatever order the files were listed in', () => {
    expect(releaseKey({ ...inputs, files: [...inputs.files].reverse() })).toBe(key);
    expect(key).toMatch(/^[0-9a-f]{32}$/);
  });

  it('changes with any file’s content: a work tree with changes never takes the release of another content', () => {
    const edited = inputs.files.map((f) => (f.path === 'package.json' ? { ...f, sha256: '4'.repeat(64) } : f));
    expect(releaseKey({ ...inputs, files: edited })).not.toBe(key);
  });

  it('changes when a file is added, removed, renamed or made runnable', () => {
    const [pkg, cli] = inputs.files as [ReleaseInputs['files'][0], ReleaseInputs['files'][0]];
    expect(releaseKey({ ...inputs, files: [pkg] })).not.toBe(key);
    expect(releaseKey({ ...inputs, files: [pkg, cli, { ...pkg, path: 'new.ts' }] })).not.toBe(key);
    expect(releaseKey({ ...inputs, files: [pkg, { ...cli, path: 'cli/other' }] })).not.toBe(key);
    expect(releaseKey({ ...inputs, files: [{ ...pkg, kind: 'x' }, cli] })).not.toBe(key);
  });

  it('changes with the build’s identity, the repository, the Node.js that runs npm and the host’s libraries', () => {
    expect(releaseKey({ ...inputs, build: { ...inputs.build, tag: `${inputs.build.tag}-dirty` } })).not.toBe(key);
    expect(releaseKey({ ...inputs, build: { ...inputs.build, hash: 'f'.repeat(40) } })).not.toBe(key);
    expect(releaseKey({ ...inputs, build: { ...inputs.build, date: '2026-12-07T10:00:00Z' } })).not.toBe(key);
    expect(releaseKey({ ...inputs, repository: 'registry.example/cascade' })).not.toBe(key);
    expect(releaseKey({ ...inputs, node: 'v24.22.0' })).not.toBe(key);
    expect(releaseKey({ ...inputs, libraries: [{ ...inputs.libraries[0]!, sha256: '5'.repeat(64) }] })).not.toBe(key);
  });
});

describe('a release found in the cache', () => {
  const digest = `sha256:${'a'.repeat(64)}`;
  const release = JSON.stringify({ image: { repository: 'ghcr.io/cascade/cascade', digest } });
  const index = JSON.stringify({ manifests: [{ digest }] });

  it('is taken when its release.json and its image agree, for the repository asked for', () => {
    expect(cachedDigest(release, index, 'ghcr.io/cascade/cascade')).toBe(digest);
  });

  it('is not taken for another repository, another image, or a file cut short', () => {
    expect(cachedDigest(release, index, 'registry.example/cascade')).toBeUndefined();
    expect(
      cachedDigest(
        release,
        JSON.stringify({ manifests: [{ digest: `sha256:${'b'.repeat(64)}` }] }),
        'ghcr.io/cascade/cascade',
      ),
    ).toBeUndefined();
    expect(cachedDigest(release.slice(0, 20), index, 'ghcr.io/cascade/cascade')).toBeUndefined();
    expect(cachedDigest(JSON.stringify({}), index, 'ghcr.io/cascade/cascade')).toBeUndefined();
  });
});

describe('the releases the cache keeps', () => {
  const entries = [
    { name: 'k1', usedMs: 1 },
    { name: 'k2', usedMs: 4 },
    { name: 'k3', usedMs: 3 },
    { name: 'k4', usedMs: 2 },
    { name: 'k5.tmp-42', usedMs: 0 },
  ];

  it('are the one just used and the two used last before it; a scratch copy is its writer’s', () => {
    expect(releasesToPrune(entries, 'k1').sort()).toEqual(['k4']);
    expect(releasesToPrune(entries, 'k9').sort()).toEqual(['k1', 'k4']);
  });

  it('are all of them while there are no more than three', () => {
    expect(releasesToPrune(entries.slice(0, 3), 'k1')).toEqual([]);
  });
});
