import { describe, expect, it } from 'vitest';
import { completionLines, type CompletionSpec, type Lookups } from './complete.ts';

const spec: CompletionSpec = {
  commands: [
    {
      name: 'list',
      aliases: ['ls'],
      flags: ['--phase', '-A', '-o', '--output'],
      withValue: ['--phase', '-o', '--output'],
      takesRun: false,
    },
    { name: 'get', aliases: [], flags: ['-o', '--output'], withValue: ['-o', '--output'], takesRun: true },
  ],
  globalFlags: ['--kubeconfig', '--context', '-n', '--namespace'],
  globalWithValue: ['--kubeconfig', '--context', '-n', '--namespace'],
};
const asked: (string | undefined)[] = [];
const lookups: Lookups = {
  runs: async (ns) => {
    asked.push(ns);
    return ['run-a', 'run-b', 'other'];
  },
  namespaces: async () => ['default', 'cascade-operator'],
  contexts: () => ['kind', 'prod'],
};

describe('shell completion', () => {
  it('offers the commands first, then their flags, then the values a flag takes; :4 ends each answer', async () => {
    expect(await completionLines(spec, [''], lookups)).toEqual(['list', 'get', ':4']);
    expect(await completionLines(spec, ['-n', 'x', 'l'], lookups)).toEqual(['list', ':4']);
    expect(await completionLines(spec, ['ls', '--'], lookups)).toEqual([
      '--phase',
      '--output',
      '--kubeconfig',
      '--context',
      '--namespace',
      ':4',
    ]);
    expect(await completionLines(spec, ['list', '--phase', 'F'], lookups)).toEqual(['Failed', ':4']);
    expect(await completionLines(spec, ['get', 'x', '-o', ''], lookups)).toEqual([
      'json',
      'yaml',
      'wide',
      'name',
      'jsonpath=',
      ':4',
    ]);
    expect(await completionLines(spec, ['--context', ''], lookups)).toEqual(['kind', 'prod', ':4']);
    expect(await completionLines(spec, ['-n', 'cas'], lookups)).toEqual(['cascade-operator', ':4']);
  });

  it("offers the runs of the namespace typed for a command's run, once", async () => {
    expect(await completionLines(spec, ['-n', 'ops', 'get', 'run-'], lookups)).toEqual(['run-a', 'run-b', ':4']);
    expect(asked.at(-1)).toBe('ops');
    expect(await completionLines(spec, ['get', 'run-a', ''], lookups)).toEqual([':4']);
    expect(await completionLines(spec, ['list', ''], lookups)).toEqual([':4']);
  });

  it('offers nothing when the cluster cannot be asked', async () => {
    const down = { ...lookups, runs: () => Promise.reject(new Error('refused')) };
    expect(await completionLines(spec, ['get', ''], down)).toEqual([':4']);
  });
});
