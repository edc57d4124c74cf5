// The reply to the module result that ends a run, with a K_SINK that never
// answers (accepts the connection, holds every request): the run-end event is
// sent after the reply, so the reply must not wait for the sink. The result
// goes through the Broker stand-in; the figure is the function's reply to the
// Broker's attempt.
import { createServer } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { install, runRequest, scenario } from './install.ts';
import { distribution, type Distribution } from './stats.ts';

export async function deadSinkReplies(kc: KubeConfig, runs: number): Promise<{ resultReplyMs: Distribution }> {
  const sink = createServer(() => {
    /* never answers */
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const port = (sink.address() as { port: number }).port;
  // One module whose pod runs far longer than the measurement: its result ends the run.
  const inst = await install(kc, scenario(1, 600_000), 'cascade-bench-sink', {
    K_SINK: `http://127.0.0.1:${port}/`,
    CASCADE_SHUTDOWN_GRACE_SECONDS: '1',
  });
  try {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = await inst.send(runRequest('sink'));
      if (started.status !== 200) throw new Error(`run request answered ${started.status}`);
      // the function's reply to the Broker's attempt that delivered the ending result
      const ended = await inst.send({ runname: started.run, modulename: 'm0', moduleresult: 'success' });
      if (ended.status !== 200 || ended.attempts !== 1)
        throw new Error(`module result answered ${ended.status} after ${ended.attempts} attempts`);
      samples.push(ended.replyMs);
      const run = (await inst.custom.getNamespacedCustomObject({
        group: 'cascade.cascade.net',
        version: 'v1alpha1',
        namespace: inst.ns,
        plural: 'cascaderuns',
        name: started.run,
      })) as { status?: { phase?: string } };
      if (run.status?.phase !== 'Succeeded')
        throw new Error(`run ${started.run} is ${run.status?.phase}, not Succeeded`);
    }
    return { resultReplyMs: distribution(samples) };
  } finally {
    await inst.stop();
    sink.closeAllConnections();
    sink.close();
  }
}
