// build.sh builds the commands whose images images.ts makes, and no other.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVING_COMMANDS } from './images.ts';

describe('the Serving commands', () => {
  it('build.sh builds the commands images.ts names, and no other', () => {
    const text = readFileSync(join(import.meta.dirname, 'build.sh'), 'utf8');
    const built = /^CMDS=\(([^)]*)\)$/m.exec(text)?.[1]?.split(' ');
    expect(built).toEqual([...SERVING_COMMANDS]);
  });
});
