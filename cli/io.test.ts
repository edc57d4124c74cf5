import { describe, expect, it } from 'vitest';
import { printNames, printObject, withoutManagedFields, type Io } from './io.ts';

const capture = (): { io: Io; text: () => string } => {
  let text = '';
  return {
    io: {
      out: {
        write: (s: string) => {
          text += s;
        },
      },
      err: { write: () => {} },
      env: {},
      now: () => 0,
    },
    text: () => text,
  };
};

describe('-o json, -o yaml and -o name', () => {
  it("leave managedFields out, as kubectl does, also in a List's items", () => {
    const run = { metadata: { name: 'r', managedFields: [{ manager: 'x' }] }, spec: { pid: 'i' } };
    expect(withoutManagedFields({ kind: 'List', items: [run] })).toEqual({
      kind: 'List',
      items: [{ metadata: { name: 'r' }, spec: { pid: 'i' } }],
    });
    const out = capture();
    printObject(out.io, 'yaml', run);
    expect(out.text()).toBe('metadata:\n  name: r\nspec:\n  pid: i\n');
  });

  it('name each run as kubectl names a custom resource', () => {
    const out = capture();
    printNames(out.io, 'cascade.cascade.net', ['a', 'b']);
    expect(out.text()).toBe('cascaderun.cascade.cascade.net/a\ncascaderun.cascade.cascade.net/b\n');
  });
});
