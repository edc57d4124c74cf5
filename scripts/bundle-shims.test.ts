import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lazyShims } from './bundle-shims.ts';

const modules = join(import.meta.dirname, '..', 'node_modules');
const require = createRequire(import.meta.url);

/** The stand-in of `source` for `importer`, evaluated with a require that records what it is asked for and answers `real`. */
function standIn(source: string, importer: string, real: unknown) {
  const plugin = lazyShims();
  const id = plugin.resolveId(source, join(modules, importer));
  expect(id).toEqual(expect.any(String));
  const code = plugin.load(id!)!;
  const required: string[] = [];
  const mod = { exports: {} as unknown };
  new Function('module', 'exports', 'require', code)(mod, mod.exports, (path: string) => {
    required.push(path);
    return real;
  });
  return { exports: mod.exports, required };
}

describe('lazyShims', () => {
  it('stands in for overload-protection: nothing required until the probe it configured is called, then the real one configured once, with the same arguments', () => {
    const configured: unknown[][] = [];
    const calls: unknown[][] = [];
    const real = (...args: unknown[]) => {
      configured.push(args);
      return (...c: unknown[]) => calls.push(c);
    };
    const s = standIn('overload-protection', 'faas-js-runtime/lib/health-check.js', real);
    const protect = (s.exports as typeof real)('http', { production: true });
    expect(s.required).toEqual([]);
    protect('req', 'reply', 'next');
    protect('req2', 'reply2', 'next2');
    expect(s.required).toEqual([join(modules, 'overload-protection/index.js')]);
    expect(configured).toEqual([['http', { production: true }]]);
    expect(calls).toEqual([
      ['req', 'reply', 'next'],
      ['req2', 'reply2', 'next2'],
    ]);
  });

  it('stands in for node-os-utils with the four functions faas-js-runtime uses, each answering what the real one does', async () => {
    const real = {
      cpu: { usage: () => Promise.resolve(12) },
      mem: { used: () => Promise.resolve({ usedMemMb: 3 }) },
      netstat: { inOut: () => Promise.resolve({ total: { inputMb: 1, outputMb: 2 } }) },
      isNotSupported: (v: unknown) => v === 'not supported',
    };
    const s = standIn('node-os-utils', 'faas-js-runtime/lib/metrics.js', real);
    const os = s.exports as typeof real;
    expect(s.required).toEqual([]);
    expect(await os.cpu.usage()).toBe(12);
    expect(await os.mem.used()).toEqual({ usedMemMb: 3 });
    expect(await os.netstat.inOut()).toEqual({ total: { inputMb: 1, outputMb: 2 } });
    expect([os.isNotSupported('not supported'), os.isNotSupported(1)]).toEqual([true, false]);
    expect(new Set(s.required)).toEqual(new Set([join(modules, 'node-os-utils/index.js')]));
  });

  it("stands in for prom-client's Pushgateway: constructing it gives the real one", () => {
    class Real {
      readonly url: string;
      constructor(url: string) {
        this.url = url;
      }
    }
    const s = standIn('./lib/pushgateway', 'prom-client/index.js', Real);
    expect(s.required).toEqual([]);
    const gateway = new (s.exports as typeof Real)('http://gateway');
    expect(gateway).toBeInstanceOf(Real);
    expect(gateway.url).toBe('http://gateway');
  });

  it.each([
    ['./transport', 'pino/lib/tools.js'],
    ['./lib/transport', 'pino/pino.js'],
  ])("stands in for pino's transport (%s from %s): calling it calls the real one", (source, importer) => {
    const calls: unknown[][] = [];
    const s = standIn(source, importer, (...args: unknown[]) => (calls.push(args), 'stream'));
    expect(s.required).toEqual([]);
    expect((s.exports as (...a: unknown[]) => unknown)({ target: 'pino/file' })).toBe('stream');
    expect(calls).toEqual([[{ target: 'pino/file' }]]);
    expect(s.required).toEqual([join(modules, 'pino/lib/transport.js')]);
  });

  it("stands in for @opentelemetry/api in prom-client's CPU metric: nothing required until trace or context is read, then the real ones", () => {
    const real = { trace: { getSpan: () => 'span' }, context: { active: () => 'ctx' } };
    const s = standIn('@opentelemetry/api', 'prom-client/lib/metrics/processCpuTotal.js', real);
    const api = s.exports as typeof real;
    expect(s.required).toEqual([]);
    expect(api.trace.getSpan()).toBe('span');
    expect(api.context.active()).toBe('ctx');
    expect(new Set(s.required)).toEqual(
      new Set([require.resolve('@opentelemetry/api', { paths: [join(modules, 'prom-client')] })]),
    );
  });

  it("stands in for faas-js-runtime's own js-yaml (4, for a func.yaml): nothing required until load is called, then its real load", () => {
    const s = standIn('js-yaml', 'faas-js-runtime/index.js', { load: (text: string) => ({ loaded: text }) });
    expect(s.required).toEqual([]);
    expect((s.exports as { load: (t: string) => unknown }).load('name: f')).toEqual({ loaded: 'name: f' });
    expect(s.required).toEqual([join(modules, 'faas-js-runtime/node_modules/js-yaml/index.js')]);
  });

  it("stands in for proxy-addr in fastify's request: the function, all and compile call the real ones", () => {
    const real = Object.assign((req: string, trust: string) => `addr ${req} ${trust}`, {
      all: (req: string) => [req],
      compile: (v: string[]) => `compiled ${v.join()}`,
    });
    const s = standIn('proxy-addr', 'fastify/lib/request.js', real);
    const p = s.exports as typeof real;
    expect(s.required).toEqual([]);
    expect(p('req', 'fn')).toBe('addr req fn');
    expect(p.all('req')).toEqual(['req']);
    expect(p.compile(['10.0.0.0/8'])).toBe('compiled 10.0.0.0/8');
    expect(new Set(s.required)).toEqual(
      new Set([require.resolve('proxy-addr', { paths: [join(modules, 'fastify')] })]),
    );
  });

  it("stands in for js-yaml in Cascade's kubeconfig reader: nothing required until a YAML document is loaded, then the real load with the same arguments", () => {
    const calls: unknown[][] = [];
    const s = standIn('js-yaml', '../shared/kube/connection.ts', {
      load: (...args: unknown[]) => (calls.push(args), { kind: 'Config' }),
    });
    expect(s.required).toEqual([]);
    expect((s.exports as { load: (...a: unknown[]) => unknown }).load('kind: Config', { json: true })).toEqual({
      kind: 'Config',
    });
    expect(calls).toEqual([['kind: Config', { json: true }]]);
    expect(s.required).toEqual([require.resolve('js-yaml')]);
  });

  it("stands in for sonic-boom's assert: a check that holds requires nothing, one that fails throws node:assert's error", () => {
    const real = (value: unknown, message: string) => {
      if (!value) throw new Error(`assert: ${message}`);
    };
    const s = standIn('assert', 'sonic-boom/index.js', real);
    const check = s.exports as typeof real;
    check(true, 'fine');
    expect(s.required).toEqual([]);
    expect(() => check(false, 'sonic.fd must be a number')).toThrow('assert: sonic.fd must be a number');
    expect(s.required).toEqual(['node:assert']);
  });

  it('stands in for raw-body in fastify-raw-body: calling it calls the real one with the same arguments', () => {
    const calls: unknown[][] = [];
    const s = standIn('raw-body', 'fastify-raw-body/plugin.js', (...args: unknown[]) => (calls.push(args), 'body'));
    expect(s.required).toEqual([]);
    expect((s.exports as (...a: unknown[]) => unknown)('stream', { limit: 10 }, 'done')).toBe('body');
    expect(calls).toEqual([['stream', { limit: 10 }, 'done']]);
    expect(s.required).toEqual([join(modules, 'raw-body/index.js')]);
  });

  it('stands in for qs in faas-js-runtime: parse and stringify answer what the real ones do', () => {
    const real = { parse: (t: string) => ({ parsed: t }), stringify: (o: object) => `s:${Object.keys(o).join()}` };
    const s = standIn('qs', 'faas-js-runtime/index.js', real);
    const qs = s.exports as typeof real;
    expect(s.required).toEqual([]);
    expect(qs.parse('a=1')).toEqual({ parsed: 'a=1' });
    expect(qs.stringify({ a: 1 })).toBe('s:a');
    expect(new Set(s.required)).toEqual(
      new Set([require.resolve('qs', { paths: [join(modules, 'faas-js-runtime')] })]),
    );
  });

  it("stands in for prom-client's AggregatorRegistry: constructed, subclassed and its statics are the real one's", () => {
    class Real {
      static aggregate(metrics: unknown[]) {
        return `aggregated ${metrics.length}`;
      }
      readonly kind = 'real';
    }
    const s = standIn('./lib/cluster', 'prom-client/index.js', Real);
    const Stand = s.exports as typeof Real;
    expect(s.required).toEqual([]);
    const registry = new Stand();
    expect(registry).toBeInstanceOf(Real);
    expect(registry.kind).toBe('real');
    expect(Stand.aggregate([1, 2])).toBe('aggregated 2');
    class Sub extends Stand {}
    expect(new Sub()).toBeInstanceOf(Sub);
    expect(new Sub()).toBeInstanceOf(Real);
    expect(new Set(s.required)).toEqual(new Set([join(modules, 'prom-client/lib/cluster.js')]));
  });

  it("stands in for fastify's validator and serializer compilers: nothing required until a builder is called, then the real selector once, with the same options", () => {
    for (const [source, name, statics] of [
      ['@fastify/ajv-compiler', 'AjvCompiler', ['AjvReference', 'StandaloneValidator']],
      ['@fastify/fast-json-stringify-compiler', 'SerializerSelector', ['StandaloneSerializer']],
    ] as const) {
      const selected: unknown[][] = [];
      const built: unknown[][] = [];
      const real = Object.assign(
        (...options: unknown[]) => {
          selected.push(options);
          return (...args: unknown[]) => built.push(args);
        },
        Object.fromEntries(statics.map((k) => [k, `real ${k}`])),
      );
      const s = standIn(source, 'fastify/lib/schema-controller.js', real);
      const selector = s.exports as ((...o: unknown[]) => (...a: unknown[]) => number) & Record<string, unknown>;
      const builder = selector({ customOptions: { coerceTypes: false } });
      expect(s.required, source).toEqual([]);
      expect([selector.default, selector[name]]).toEqual([selector, selector]);
      expect(builder({ ext: 1 }, { opts: 1 })).toBe(1);
      expect(builder({ ext: 2 }, { opts: 2 })).toBe(2);
      expect(selected).toEqual([[{ customOptions: { coerceTypes: false } }]]);
      expect(built).toEqual([
        [{ ext: 1 }, { opts: 1 }],
        [{ ext: 2 }, { opts: 2 }],
      ]);
      for (const k of statics) expect(selector[k]).toBe(`real ${k}`);
      const path = require.resolve(source, { paths: [join(modules, 'fastify/lib')] });
      expect(new Set(s.required)).toEqual(new Set([path]));
      // The stand-in has every export of the real module.
      expect(Object.keys(require(path) as object).sort(), source).toEqual(['default', name, ...statics].sort());
    }
  });

  it('stands in for json-bigint in cloudevents: the factory and its parse/stringify are the real ones', () => {
    const real = Object.assign((options: object) => ({ made: options }), {
      parse: JSON.parse,
      stringify: JSON.stringify,
    });
    const s = standIn('json-bigint', 'cloudevents/dist/parsers.js', real);
    const big = s.exports as typeof real;
    expect(s.required).toEqual([]);
    expect(big({ useNativeBigInt: true })).toEqual({ made: { useNativeBigInt: true } });
    expect(big.parse).toBe(JSON.parse);
    expect(big.stringify).toBe(JSON.stringify);
    expect(Object.keys(big)).toEqual(['parse', 'stringify']);
  });

  it('leaves every other import alone, the same source from another importer included', () => {
    const plugin = lazyShims();
    expect(plugin.resolveId('assert', join(modules, 'fastify/lib/server.js'))).toBeNull();
    expect(plugin.resolveId('node-os-utils', join(modules, 'other/index.js'))).toBeNull();
    expect(plugin.resolveId('overload-protection', undefined)).toBeNull();
  });

  it('fails the build when a stand-in whose importer is bundled was not used (a dependency changed how it loads the module)', () => {
    const plugin = lazyShims();
    plugin.resolveId('assert', join(modules, 'sonic-boom/index.js'));
    const bundled = [
      'faas-js-runtime/lib/health-check.js',
      'faas-js-runtime/lib/metrics.js',
      'sonic-boom/index.js',
    ].map((f) => join(modules, f));
    expect(() => plugin.buildEnd.call({ getModuleIds: () => bundled })).toThrow(
      /^bundle: no module required overload-protection, node-os-utils as expected/,
    );
  });

  it('passes a bundle without the importers of the stand-ins it did not use', () => {
    const plugin = lazyShims();
    plugin.resolveId('assert', join(modules, 'sonic-boom/index.js'));
    expect(() =>
      plugin.buildEnd.call({
        getModuleIds: () => [join(modules, 'sonic-boom/index.js'), join(modules, 'fastify/fastify.js')],
      }),
    ).not.toThrow();
  });
});
