import { describe, expect, it } from 'vitest';
import { parseOutput } from '../commands/output-option.ts';
import { jsonPath, parseTemplate } from './jsonpath.ts';

const list = {
  kind: 'List',
  items: [
    {
      metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'x' } },
      status: { phase: 'Succeeded', currentStep: 2 },
    },
    { metadata: { name: 'b' }, status: { phase: 'Failed', currentStep: 0, modules: [{ name: 'm', attempt: 2 }] } },
  ],
};

describe('-o jsonpath', () => {
  it('prints fields, several results joined by a space, with no newline added', () => {
    expect(jsonPath('{.kind}', list)).toBe('List');
    expect(jsonPath('{.items[*].metadata.name}', list)).toBe('a b');
    expect(jsonPath('{.items[0].status}', list)).toBe('{"phase":"Succeeded","currentStep":2}');
    expect(jsonPath('{.items[-1].metadata.name}', list)).toBe('b');
    expect(jsonPath('{$.items[0:1].metadata.name}', list)).toBe('a');
    expect(jsonPath("{.items[0].metadata.labels['app.kubernetes.io/name']}", list)).toBe('x');
    expect(jsonPath('{..attempt}', list)).toBe('2');
    expect(jsonPath('{.missing}', list)).toBe('');
  });

  it('takes range and end, string literals, and filters', () => {
    expect(jsonPath('{range .items[*]}{.metadata.name}{"\\t"}{.status.phase}{"\\n"}{end}', list)).toBe(
      'a\tSucceeded\nb\tFailed\n',
    );
    expect(jsonPath('{.items[?(@.status.phase=="Failed")].metadata.name}', list)).toBe('b');
    expect(jsonPath('{.items[?(@.status.currentStep>1)].metadata.name}', list)).toBe('a');
    expect(jsonPath('{.items[?(@.status.modules)].metadata.name}', list)).toBe('b');
    expect(jsonPath('name: {.items[1].metadata.name}!', list)).toBe('name: b!');
  });

  it("refuses a template kubectl's parser refuses, when -o is read", () => {
    expect(() => parseTemplate('{range .items[*]}{.x}')).toThrow('unclosed range');
    expect(() => parseTemplate('{end}')).toThrow('not in range');
    expect(() => parseTemplate('{.items[')).toThrow('unclosed action');
    expect(() => parseOutput('jsonpath={.items[}')).toThrow(/error parsing jsonpath/);
    expect(() => parseOutput('table')).toThrow('Allowed choices are json, yaml, wide, name, jsonpath=TEMPLATE.');
    expect(parseOutput("jsonpath='{.kind}'")).toBe('jsonpath={.kind}');
    expect(parseOutput('wide')).toBe('wide');
  });
});
