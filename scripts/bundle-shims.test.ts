import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lazyShims } from './bundle-shims.ts';

const modules = join(import.meta.dirname, '..', 'node_modules');

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
    expect(calls).toEqual([['req', 'reply', 'next'], ['req2', 'reply2', 'next2']]);
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

  it('stands in for prom-client\'s Pushgateway: constructing it gives the real one', () => {
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

  it.each([['./transport', 'pino/lib/tools.js'], ['./lib/transport', 'pino/pino.js']])('stands in for pino\'s transport (%s from %s): calling it calls the real one', (source, importer) => {
    const calls: unknown[][] = [];
    const s = standIn(source, importer, (...args: unknown[]) => (calls.push(args), 'stream'));
    expect(s.required).toEqual([]);
    expect((s.exports as (...a: unknown[]) => unknown)({ target: 'pino/file' })).toBe('stream');
    expect(calls).toEqual([[{ target: 'pino/file' }]]);
    expect(s.required).toEqual([join(modules, 'pino/lib/transport.js')]);
  });

  it('stands in for sonic-boom\'s assert: a check that holds requires nothing, one that fails throws node:assert\'s error', () => {
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

  it('leaves every other import alone, the same source from another importer included', () => {
    const plugin = lazyShims();
    expect(plugin.resolveId('assert', join(modules, 'fastify/lib/server.js'))).toBeNull();
    expect(plugin.resolveId('node-os-utils', join(modules, 'other/index.js'))).toBeNull();
    expect(plugin.resolveId('overload-protection', undefined)).toBeNull();
  });

  it('fails the build when a stand-in was not used (a dependency changed how it loads the module)', () => {
    const plugin = lazyShims();
    plugin.resolveId('assert', join(modules, 'sonic-boom/index.js'));
    expect(() => plugin.buildEnd()).toThrow(/overload-protection, node-os-utils, \.\/lib\/pushgateway, \.\/transport, \.\/lib\/transport/);
  });
});
