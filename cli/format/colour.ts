// Colours only on a terminal, and never when NO_COLOR is set to something
// (https://no-color.org). Pure: the caller says whether the stream is a TTY.

export interface Palette {
  enabled: boolean;
  phase: (phase: string, text?: string) => string;
  dim: (text: string) => string;
  bold: (text: string) => string;
}

const SGR: Record<string, number> = {
  Succeeded: 32,
  Failed: 31,
  Cancelled: 35,
  Running: 36,
  Retrying: 33,
  Queued: 90,
  Pending: 90,
};

export function colourEnabled(isTTY: boolean | undefined, env: Record<string, string | undefined>): boolean {
  return Boolean(isTTY) && !env.NO_COLOR;
}

export function palette(enabled: boolean): Palette {
  const wrap = (code: number | undefined, text: string) =>
    enabled && code !== undefined ? `\x1b[${code}m${text}\x1b[0m` : text;
  return {
    enabled,
    phase: (phase, text = phase) => wrap(SGR[phase], text),
    dim: (text) => wrap(2, text),
    bold: (text) => wrap(1, text),
  };
}
