// What scripts/bundle.ts puts in place of a few modules that the runtime's
// dependencies (and Cascade) require when they load, to use later or never.
// Each stand-in has the same exports, and requires the real module, bundled as
// it is, the first time one of them is used. A cold process then does not
// evaluate them, nor the Node.js modules they require (child_process, zlib,
// assert), before it serves. Nothing else changes: a process that uses them
// gets the real ones.
// - faas-js-runtime's default probes (lib/health-check.js) configure
//   overload-protection when they load, which starts a 5 ms event-loop timer
//   for the life of the process; Cascade's /healthz and /ready replace both
//   probes, so the timer starts only if a default probe is ever served.
// - faas-js-runtime's metrics (lib/metrics.js) read CPU, memory and network
//   use through node-os-utils when its /metrics is scraped, not before.
// - prom-client's Pushgateway (zlib) is never used by Cascade.
// - pino's transports (a worker thread through thread-stream, which loads
//   assert) are used by neither logger: pino.transport() loads them when called.
// - sonic-boom (pino's destination) checks one argument with assert(): the
//   check is made here, and node:assert throws its error when it fails.
// - faas-js-runtime registers fastify-raw-body only with FUNC_INCLUDE_RAW,
//   yet the plugin's raw-body (with http-errors and iconv-lite) loads with it.
// - faas-js-runtime parses a form body (application/x-www-form-urlencoded)
//   with qs, which Cascade refuses unparsed anyway (415).
// - prom-client's AggregatorRegistry (node:cluster) is for cluster workers,
//   which Cascade does not run.
// - cloudevents uses json-bigint only when CE_USE_BIG_INT is "true".
// - faas-js-runtime reads a func.yaml in its working directory with its own
//   js-yaml (4) if there is one: the image has none.
// - fastify compiles a trusted-proxy check with proxy-addr only with
//   trustProxy, which the runtime does not set.
// - prom-client's process CPU metric reads the active OpenTelemetry span
//   (@opentelemetry/api) only for exemplars, which nothing here enables.
// - Cascade reads a kubeconfig with js-yaml only when it is not JSON
//   (shared/kube/connection.ts). In a cluster there is none, and programs
//   write JSON ones. js-yaml's schemas take 4-6 ms of a cold start to build.
// - fastify's schema controller makes its validator and serializer compilers
//   (@fastify/ajv-compiler with ajv, @fastify/fast-json-stringify-compiler
//   with fast-json-stringify) when it loads, and uses them only for a route
//   with a JSON schema: the runtime's routes have none.
// Kept because paired cold starts show them worth more than 10 % of the first
// answered run request. The main thread's CPU to it is 159 ms with them and
// 181 ms without, over 24 pairs.
import { createRequire } from 'node:module';

interface Shim {
  /** The importing file (a dependency in node_modules/, or one of Cascade's). */
  importer: RegExp;
  source: string;
  /** CommonJS source of the stand-in; `require(REAL)` is replaced by a require of the real module, which is bundled. */
  code: string;
}

/**
 * A stand-in for a module whose export is a selector: called with options, it
 * returns the compiler builder fastify calls later. The real selector is
 * called, with the same options, when that builder is first called; the
 * statics named are the real module's, read when first read.
 */
function selectorShim(name: string, statics: string[]): string {
  const getters = statics.map(
    (key) => `Object.defineProperty(module.exports, '${key}', { enumerable: true, get: () => require(REAL).${key} });`,
  );
  return [
    `function ${name}(...options) {
  let built;
  return function (...args) {
    built = built || require(REAL)(...options);
    return built(...args);
  };
}`,
    `module.exports = ${name};`,
    `module.exports.default = ${name};`,
    `module.exports.${name} = ${name};`,
    ...getters,
  ].join('\n');
}

/** js-yaml as its readers use it (load alone), for both versions in the bundle. */
const YAML_LOAD = `module.exports = {
  load: (...a) => require(REAL).load(...a),
};`;

const SHIMS: Shim[] = [
  {
    importer: /node_modules\/faas-js-runtime\/lib\/health-check\.js$/,
    source: 'overload-protection',
    code: `module.exports = function protection(framework, opts) {
  let protect;
  return function (req, res, next) {
    protect = protect || require(REAL)(framework, opts);
    return protect(req, res, next);
  };
};`,
  },
  {
    importer: /node_modules\/faas-js-runtime\/lib\/metrics\.js$/,
    source: 'node-os-utils',
    code: `let os;
const real = () => (os = os || require(REAL));
module.exports = {
  cpu: { usage: (...a) => real().cpu.usage(...a) },
  mem: { used: (...a) => real().mem.used(...a) },
  netstat: { inOut: (...a) => real().netstat.inOut(...a) },
  isNotSupported: (value) => real().isNotSupported(value),
};`,
  },
  {
    importer: /node_modules\/prom-client\/index\.js$/,
    source: './lib/pushgateway',
    code: `module.exports = function Pushgateway(...args) {
  const Real = require(REAL);
  return new Real(...args);
};`,
  },
  ...[
    { importer: /node_modules\/pino\/lib\/tools\.js$/, source: './transport' },
    { importer: /node_modules\/pino\/pino\.js$/, source: './lib/transport' },
  ].map((s) => ({
    ...s,
    code: `module.exports = function transport(...args) {
  return require(REAL)(...args);
};`,
  })),
  {
    importer: /node_modules\/fastify-raw-body\/plugin\.js$/,
    source: 'raw-body',
    code: `module.exports = function getRawBody(...args) {
  return require(REAL)(...args);
};`,
  },
  {
    importer: /node_modules\/faas-js-runtime\/index\.js$/,
    source: 'qs',
    code: `module.exports = {
  parse: (...a) => require(REAL).parse(...a),
  stringify: (...a) => require(REAL).stringify(...a),
};`,
  },
  {
    importer: /node_modules\/prom-client\/index\.js$/,
    source: './lib/cluster',
    code: `const real = () => require(REAL);
module.exports = new Proxy(function AggregatorRegistry() {}, {
  construct: (_t, args, target) => Reflect.construct(real(), args, target === module.exports ? real() : target),
  get: (_t, key) => Reflect.get(real(), key),
});`,
  },
  {
    importer: /node_modules\/cloudevents\/dist\/parsers\.js$/,
    source: 'json-bigint',
    code: `module.exports = function JSONbig(options) {
  return require(REAL)(options);
};
Object.defineProperty(module.exports, 'parse', { enumerable: true, get: () => require(REAL).parse });
Object.defineProperty(module.exports, 'stringify', { enumerable: true, get: () => require(REAL).stringify });`,
  },
  {
    importer: /node_modules\/fastify\/lib\/schema-controller\.js$/,
    source: '@fastify/ajv-compiler',
    code: selectorShim('AjvCompiler', ['AjvReference', 'StandaloneValidator']),
  },
  {
    importer: /node_modules\/fastify\/lib\/schema-controller\.js$/,
    source: '@fastify/fast-json-stringify-compiler',
    code: selectorShim('SerializerSelector', ['StandaloneSerializer']),
  },
  {
    importer: /node_modules\/prom-client\/lib\/metrics\/processCpuTotal\.js$/,
    source: '@opentelemetry/api',
    code: `module.exports = {
  get trace() { return require(REAL).trace; },
  get context() { return require(REAL).context; },
};`,
  },
  {
    importer: /node_modules\/faas-js-runtime\/index\.js$/,
    source: 'js-yaml',
    code: YAML_LOAD,
  },
  {
    importer: /node_modules\/fastify\/lib\/request\.js$/,
    source: 'proxy-addr',
    code: `function proxyaddr(...a) {
  return require(REAL)(...a);
}
proxyaddr.all = (...a) => require(REAL).all(...a);
proxyaddr.compile = (...a) => require(REAL).compile(...a);
module.exports = proxyaddr;`,
  },
  {
    importer: /\/shared\/kube\/connection\.ts$/,
    source: 'js-yaml',
    code: YAML_LOAD,
  },
  {
    importer: /node_modules\/sonic-boom\/index\.js$/,
    source: 'assert',
    code: `module.exports = function assert(value, message) {
  if (!value) require('node:assert')(value, message);
};`,
  },
];

const PREFIX = '\0cascade-shim:';

/** A stand-in's module id: one per stand-in, two of the same source (js-yaml 4 and 5) included. */
const idOf = (shim: Shim) => `${PREFIX}${SHIMS.indexOf(shim)}:${shim.source}`;

/** A rolldown plugin that puts the stand-ins above in place of the modules they stand for. */
export function lazyShims() {
  const codes = new Map<string, string>();
  return {
    name: 'cascade-lazy-shims',
    resolveId(source: string, importer: string | undefined) {
      const shim = importer ? SHIMS.find((s) => s.source === source && s.importer.test(importer)) : undefined;
      if (!shim || !importer) return null;
      const real = source === 'assert' ? 'node:assert' : createRequire(importer).resolve(source);
      const id = idOf(shim);
      codes.set(id, `'use strict';\n${shim.code.replaceAll('require(REAL)', `require(${JSON.stringify(real)})`)}\n`);
      return id;
    },
    load(id: string) {
      return codes.get(id) ?? null;
    },
    /**
     * Every stand-in whose importer is in the bundle was used: a dependency
     * that changed how it loads them fails the build here. (A bundle without
     * the importer, such as the bench's empty function without Cascade's
     * kubeconfig reader, needs none.)
     */
    buildEnd(this: { getModuleIds(): Iterable<string> }) {
      const ids = [...this.getModuleIds()];
      const missing = SHIMS.filter((s) => !codes.has(idOf(s)) && ids.some((id) => s.importer.test(id))).map(
        (s) => s.source,
      );
      if (missing.length > 0)
        throw new Error(`bundle: no module required ${missing.join(', ')} as expected (scripts/bundle-shims.ts)`);
    },
  };
}
