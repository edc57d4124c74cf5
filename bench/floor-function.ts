// The entry of the cold phase's floor bundle (bench/cold-floor.ts):
// faas-js-runtime serving a function that does nothing, on FUNC_PORT, bundled
// and started as the deployable is (scripts/launcher.ts), with nothing of
// Cascade in it.
import runtime from 'faas-js-runtime';

export function serve(): Promise<unknown> {
  return runtime.start(() => undefined, { port: Number(process.env.FUNC_PORT ?? 8080) });
}
