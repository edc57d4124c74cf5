// --timeout, the bound of a command's wait for the cluster to show a change.
import { Option } from 'commander';
import { CliError } from '../io.ts';

/** `60`, `60s` or `2m`: seconds. */
export function parseTimeout(text: string): number {
  const m = /^(\d+)(s|m)?$/.exec(text.trim());
  if (!m) throw new CliError(`--timeout ${text}: give seconds, as 60, 60s or 2m`);
  return Number(m[1]) * (m[2] === 'm' ? 60 : 1);
}

/** --timeout <seconds>, 60 unless given. */
export const timeoutOption = (what: string) =>
  new Option('--timeout <seconds>', `${what} (60, 60s, 2m)`).argParser(parseTimeout).default(60);
