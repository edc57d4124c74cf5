// Reads the Containerfile into its stages and instructions, so that tests can
// check it against the rest of the repository and run its stages' commands
// outside a container engine (test/production-build.test.ts). Only the
// instructions the Containerfile uses are understood; anything else is an
// error, not silently skipped. Pure.

export type Instruction =
  | { op: 'WORKDIR'; path: string }
  | { op: 'COPY'; from?: string; sources: string[]; dest: string }
  | { op: 'RUN'; command: string }
  | { op: 'ENV'; vars: Record<string, string> }
  | { op: 'ARG'; vars: Record<string, string> }
  | { op: 'USER'; user: string }
  | { op: 'EXPOSE'; port: string }
  | { op: 'CMD'; argv: string[] };

export interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

export interface Containerfile {
  /** ARGs declared before the first FROM, with their defaults. */
  args: Record<string, string>;
  stages: Stage[];
}

/** Logical lines: comments and blank lines dropped, `\` continuations joined. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  if (pending) lines.push(pending.trim());
  return lines;
}

/** `A=1 B="x y"` (or the ARG form `A`, no default). */
function assignments(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:=("[^"]*"|\S*))?/g)) {
    const value = match[2] ?? '';
    vars[match[1]!] = value.startsWith('"') ? value.slice(1, -1) : value;
  }
  return vars;
}

const substitute = (text: string, vars: Record<string, string>) =>
  text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    if (!(name in vars)) throw new Error(`Containerfile: \${${name}} is not declared`);
    return vars[name]!;
  });

function copy(rest: string): Instruction {
  const words = rest.split(/\s+/);
  const from = words[0]?.startsWith('--from=') ? words.shift()!.slice('--from='.length) : undefined;
  if (words.length < 2 || words.some((w) => w.startsWith('--')))
    throw new Error(`Containerfile: COPY ${rest} is not understood`);
  return { op: 'COPY', ...(from ? { from } : {}), sources: words.slice(0, -1), dest: words.at(-1)! };
}

function instruction(op: string, rest: string): Instruction {
  switch (op) {
    case 'WORKDIR':
      return { op, path: rest };
    case 'COPY':
      return copy(rest);
    case 'RUN':
      return { op, command: rest };
    case 'ENV':
      return { op, vars: assignments(rest) };
    case 'ARG':
      return { op, vars: assignments(rest) };
    case 'USER':
      return { op, user: rest };
    case 'EXPOSE':
      return { op, port: rest };
    case 'CMD':
      return { op, argv: JSON.parse(rest) as string[] };
    default:
      throw new Error(`Containerfile: ${op} is not understood`);
  }
}

export function parseContainerfile(text: string): Containerfile {
  const file: Containerfile = { args: {}, stages: [] };
  for (const line of logicalLines(text)) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = op.toUpperCase();
    if (upper === 'FROM') {
      const [image = '', as, name] = substitute(rest, file.args).split(/\s+/);
      file.stages.push({ image, ...(as?.toUpperCase() === 'AS' && name ? { name } : {}), instructions: [] });
    } else if (file.stages.length === 0) {
      if (upper !== 'ARG') throw new Error(`Containerfile: ${op} before the first FROM`);
      Object.assign(file.args, assignments(rest));
    } else {
      file.stages.at(-1)!.instructions.push(instruction(upper, rest));
    }
  }
  return file;
}

/** The instructions of one kind in a stage. */
export function ofKind<K extends Instruction['op']>(stage: Stage, op: K): Extract<Instruction, { op: K }>[] {
  return stage.instructions.filter((i): i is Extract<Instruction, { op: K }> => i.op === op);
}
