// How a function is bundled (scripts/bundle.ts says why each output option),
// shared by the build and by the bench's empty-function floor
// (bench/cold-floor.ts), so that the floor is bundled exactly as Cascade is.
//
// Module wrappers are not wrapped in parentheses. Rolldown wraps each bundled
// module's function in them. V8 reads that as "called at once" and compiles
// every module eagerly with the script, used or not. The code cache shipped
// with the build holds whatever was compiled, and every cold process
// deserializes all of it before it runs a line. Without the parentheses the
// cache holds what the build's warm-up ran. `pifeForModuleWrappers: false`
// does this for the ES modules' wrappers. Rolldown has no option for the
// CommonJS modules' wrappers, so they are rewritten here, and the build
// fails if one is left in parentheses. Paired cold starts: the main thread's
// CPU to the first answered run request is 191 ms without the rewrite and
// 168 ms with it (20 pairs).
import { RolldownMagicString, type BuildOptions, type Plugin } from 'rolldown';

/** A CommonJS module's wrapper with its function in parentheses: `__commonJSMin(((exports, module) => {`, `__commonJSMin((() => {`. */
const EAGER_WRAPPER = /\b__commonJSMin\(\((?=\()/g;
/** Any module wrapper's function in parentheses, in the bundle as written. */
const PARENTHESIZED = /\b__(?:commonJSMin|esmMin)\(\(\(/;

/**
 * Each CommonJS wrapper's `((f))` as `((0, f))`: the same function, called
 * the same way, not one V8 takes for called at once (rolldown prints the
 * chunk again after renderChunk, and writes it as `(f)`).
 */
export function unparenthesized(code: string): RolldownMagicString {
  const s = new RolldownMagicString(code);
  for (const m of code.matchAll(EAGER_WRAPPER)) s.appendLeft(m.index + m[0].length, '0, ');
  return s;
}

/** A bundle as written with a module wrapper in parentheses fails the build. */
export function checkUnparenthesized(fileName: string, code: string): void {
  if (PARENTHESIZED.test(code))
    throw new Error(
      `bundle: ${fileName} has a module wrapper in parentheses, which V8 compiles with the script (scripts/bundle-options.ts)`,
    );
}

/** The rolldown plugin: wrappers rewritten when the chunk is rendered, the bundle checked when it is written. */
export function lazyModuleWrappers(): Plugin {
  return {
    name: 'cascade-lazy-module-wrappers',
    renderChunk: (code) => unparenthesized(code),
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle))
        if (chunk.type === 'chunk') checkUnparenthesized(chunk.fileName, chunk.code);
    },
  };
}

/** rolldown's options for a bundle of `input` written to `dir` as [name].cjs. */
export function bundleOptions(input: Record<string, string>, dir: string): BuildOptions {
  return {
    input,
    platform: 'node',
    logLevel: 'warn',
    plugins: [lazyModuleWrappers()],
    optimization: { pifeForModuleWrappers: false },
    output: {
      dir,
      format: 'cjs',
      entryFileNames: '[name].cjs',
      codeSplitting: false,
      sourcemap: true,
      charset: 'ascii',
      comments: false,
    },
  };
}
