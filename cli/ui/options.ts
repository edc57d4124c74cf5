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
