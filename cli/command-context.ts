// What every command's action shares: the Io, the kubectl flags of the
// program, and one way of turning an error into stderr and an exit status.
import { Command } from 'commander';
import { connect, describeError, serverOf as serverOfFlags, type Kube, type KubeFlags } from './kube/connect.ts';
import { CliError, type Io } from './io.ts';
import { EXIT_ERROR } from './runs/exit-code.ts';

export interface Ctx {
  io: Io;
  exitCode: number;
}

/** The kubectl flags given anywhere on the command line. */
export function kubeFlags(cmd: Command): KubeFlags {
  const o = cmd.optsWithGlobals<KubeFlags>();
  return { kubeconfig: o.kubeconfig, context: o.context, namespace: o.namespace };
}

export function connection(cmd: Command): Kube {
  return connect(kubeFlags(cmd));
}

/** The API server's URL the command talked to (commander passes the command last), to name it in an error. */
function serverOf(cmd: unknown): string | undefined {
  return cmd instanceof Command ? serverOfFlags(kubeFlags(cmd)) : undefined;
}

/** An action whose result is the exit status; an error it throws goes to stderr with a non-zero status. */
export function act<A extends unknown[]>(
  ctx: Ctx,
  fn: (...args: A) => Promise<number | void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      ctx.exitCode = (await fn(...args)) ?? 0;
    } catch (error) {
      ctx.io.err.write(`error: ${describeError(error, serverOf(args.at(-1)))}\n`);
      ctx.exitCode = error instanceof CliError ? error.code : EXIT_ERROR;
    }
  };
}
