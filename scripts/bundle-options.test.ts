import { describe, expect, it } from 'vitest';
import { checkUnparenthesized, unparenthesized } from './bundle-options.ts';

const eager = [
  'var require_a = __commonJSMin(((exports, module) => {',
  '\tmodule.exports = "__commonJSMin((";',
  '}));',
  'var require_b = __commonJSMin((() => {',
  '}));',
  'var import_c = __toESM(__commonJSMin(((exports) => {',
  '})));',
].join('\n');

describe('lazyModuleWrappers', () => {
  it("takes every CommonJS wrapper's function out of its own parentheses, and changes nothing else", () => {
    expect(unparenthesized(eager).toString()).toBe(
      [
        'var require_a = __commonJSMin((0, (exports, module) => {',
        '\tmodule.exports = "__commonJSMin((";',
        '}));',
        'var require_b = __commonJSMin((0, () => {',
        '}));',
        'var import_c = __toESM(__commonJSMin((0, (exports) => {',
        '})));',
      ].join('\n'),
    );
  });

  it('leaves a wrapper already without parentheses as it is', () => {
    const lazy =
      'var require_a = __commonJSMin((exports, module) => {\n});\nvar require_b = __commonJSMin(() => {\n});\nvar init_c = __esmMin(() => {\n});';
    expect(unparenthesized(lazy).toString()).toBe(lazy);
  });

  it('fails a bundle written with a wrapper in parentheses, CommonJS or ES module, and passes one without', () => {
    expect(() => checkUnparenthesized('function.cjs', eager)).toThrow(
      /function\.cjs has a module wrapper in parentheses/,
    );
    expect(() => checkUnparenthesized('function.cjs', 'var init_a = __esmMin((() => {\n}));')).toThrow(
      /in parentheses/,
    );
    expect(() =>
      checkUnparenthesized(
        'function.cjs',
        'var require_a = __commonJSMin((exports, module) => {\n});\nvar init_b = __esmMin(() => {});',
      ),
    ).not.toThrow();
  });
});
