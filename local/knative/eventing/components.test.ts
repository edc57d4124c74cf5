import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binaryName, EVENTING_COMMANDS, imageReference, koCommand } from './components.ts';

/** The commands of build.sh's CMDS=( ... ) list. */
function buildScriptCommands(): string[] {
  const text = readFileSync(join(import.meta.dirname, 'build.sh'), 'utf8');
  const list = /^CMDS=\(\n([\s\S]*?)\n\)$/m.exec(text)?.[1] ?? '';
  return list.split('\n').map((line) => line.trim());
}

describe('the Eventing commands', () => {
  it('build.sh builds the commands components.ts names, and no other', () => {
    expect(buildScriptCommands()).toEqual([...EVENTING_COMMANDS]);
  });

  it('builds no command whose pod never runs here: mtping, auth_proxy', () => {
    expect(EVENTING_COMMANDS).not.toContain('mtping');
    expect(EVENTING_COMMANDS).not.toContain('auth_proxy');
  });

  it('names a binary and an image after the command path', () => {
    expect(binaryName('broker/ingress')).toBe('broker-ingress');
    expect(imageReference('broker/ingress', 'v1')).toBe('cascade.local/knative-eventing/broker-ingress:v1');
    expect(koCommand('ko://knative.dev/eventing/cmd/broker/filter')).toBe('broker/filter');
    expect(koCommand('gcr.io/x')).toBeUndefined();
  });
});
