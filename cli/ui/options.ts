// The ui command's options, checked. Pure.
import { isIP } from 'node:net';
import { CliError } from '../io.ts';
import { isLoopback } from './security.ts';

export const DEFAULT_PORT = 7080;
export const DEFAULT_ADDRESS = '127.0.0.1';

export interface UiFlags {
  port?: string;
  address?: string;
  open?: boolean;
  allNamespaces?: boolean;
}

export interface UiSettings {
  port: number;
  address: string;
  open: boolean;
  allNamespaces: boolean;
  /** Said on stderr when the address is not loopback. */
  warning?: string;
}

function portOf(flag: string | undefined): number {
  if (flag === undefined) return DEFAULT_PORT;
  const port = Number(flag);
  if (!/^\d+$/.test(flag) || port > 65535)
    throw new CliError(`--port ${flag}: not a port (0 to 65535; 0 takes any free port)`);
  return port;
}

export function uiSettings(flags: UiFlags): UiSettings {
  const port = portOf(flags.port);
  const address = flags.address ?? DEFAULT_ADDRESS;
  if (address !== 'localhost' && isIP(address) === 0)
    throw new CliError(`--address ${address}: not an IP address (the default is ${DEFAULT_ADDRESS})`);
  const warning = isLoopback(address)
    ? undefined
    : `warning: --address ${address} is not loopback: whoever reaches it sees what your kubeconfig can read, and only the token guards cancel and resume`;
  return {
    port,
    address,
    open: flags.open ?? false,
    allNamespaces: flags.allNamespaces ?? false,
    ...(warning ? { warning } : {}),
  };
}

/** A listen that failed, in the user's terms: which port, and what to do. */
export function listenError(error: unknown, at: { address: string; port: number }): unknown {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'EADDRINUSE')
    return new CliError(
      `port ${at.port} is in use on ${at.address}: give another with --port, or --port 0 for any free one`,
    );
  if (code === 'EACCES')
    return new CliError(`port ${at.port} on ${at.address} is not allowed to this user: give another with --port`);
  if (code === 'EADDRNOTAVAIL') return new CliError(`--address ${at.address}: no interface of this machine has it`);
  return error;
}
