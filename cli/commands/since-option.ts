// --since <duration>, as list and logs take it: milliseconds.
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../format/duration.ts';

/** `90s`, `30m`, `1h`, `2d`, or Go's `1h30m`: milliseconds. */
export function parseSince(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new InvalidArgumentError('give a duration, as 90s, 30m, 1h or 2d');
  return ms;
}
