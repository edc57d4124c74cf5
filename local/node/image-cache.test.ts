import { describe, expect, it } from 'vitest';
import type { ImageDefinition } from './image-build.ts';
import { archiveName, imageCacheKey, sourcesOf, staleArchives, type FileStamp } from './image-cache.ts';

const image: ImageDefinition = {
  reference: 'cascade.local/knative-serving/controller:v0.50.0',
  files: [
    { path: '/etc/passwd', content: 'root:x:0:0::/:/sbin/nologin\n' },
    { path: '/ko-app/controller', from: '/cache/bin/controller', mode: 0o755 },
  ],
  layers: [[{ path: '/etc/ssl/certs/ca.crt', from: '/etc/ssl/ca.crt' }]],
  config: { entrypoint: ['/ko-app/controller'] },
};

const stamp = (ino: number, over: Partial<FileStamp> = {}): FileStamp => ({
  dev: 1,
  ino,
  size: 100,
  mtimeMs: 1000,
  ctimeMs: 1000,
  ...over,
});
const stamps = { '/cache/bin/controller': stamp(7), '/etc/ssl/ca.crt': stamp(8) };

describe('the key of an image archive in the cache', () => {
  it('names the files the image copies from the machine, every layer', () => {
    expect(sourcesOf(image)).toEqual(['/cache/bin/controller', '/etc/ssl/ca.crt']);
  });

  it('is the same for the same definition and the same files on disk', () => {
    expect(imageCacheKey(image, stamps)).toBe(imageCacheKey(structuredClone(image), { ...stamps }));
    expect(imageCacheKey(image, stamps)).toMatch(/^[0-9a-f]{24}$/);
  });

  it('changes when a binary is written again, even to the same size', () => {
    const key = imageCacheKey(image, stamps);
    for (const changed of [{ mtimeMs: 2000 }, { ctimeMs: 2000 }, { ino: 9 }, { size: 101 }]) {
      expect(imageCacheKey(image, { ...stamps, '/cache/bin/controller': stamp(7, changed) })).not.toBe(key);
    }
  });

  it('changes with the definition: its config, its files, its reference', () => {
    const key = imageCacheKey(image, stamps);
    expect(imageCacheKey({ ...image, config: { entrypoint: ['/other'] } }, stamps)).not.toBe(key);
    expect(imageCacheKey({ ...image, reference: `${image.reference}-b` }, stamps)).not.toBe(key);
    const files = [{ path: '/etc/passwd', content: 'x' }, image.files[1]!];
    expect(imageCacheKey({ ...image, files }, stamps)).not.toBe(key);
  });

  it('refuses a file it has no stamp of', () => {
    expect(() => imageCacheKey(image, { '/cache/bin/controller': stamp(7) })).toThrow(/no stamp of \/etc\/ssl\/ca.crt/);
  });
});

describe('the archives of one reference', () => {
  const key = 'a'.repeat(24);
  const name = archiveName('cascade.local/pause:3.10', key);

  it('are named by the reference, made a file name, and the key', () => {
    expect(name).toBe(`cascade.local_pause_3.10@${key}.tar`);
  });

  it("removes the reference's archives of other keys, never this key's, another reference's or a scratch copy", () => {
    const old = archiveName('cascade.local/pause:3.10', 'b'.repeat(24));
    const names = [
      name,
      name.replace(/\.tar$/, '.json'),
      old,
      old.replace(/\.tar$/, '.json'),
      `${old}.tmp-42`,
      archiveName('cascade.local/module:1', 'b'.repeat(24)),
    ];
    expect(staleArchives(names, 'cascade.local/pause:3.10', key)).toEqual([old, old.replace(/\.tar$/, '.json')]);
  });
});
