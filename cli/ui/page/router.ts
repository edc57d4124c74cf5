// Which view a path names: deep links `/runs/<ns>/<name>` and
// `/scenarios/<ns>/<name>`, the lists, and `/` for the runs. Pure.
export type View =
  | { kind: 'runs' }
  | { kind: 'scenarios' }
  | { kind: 'run'; namespace: string; name: string }
  | { kind: 'scenario'; namespace: string; name: string }
  | { kind: 'missing' };

export function viewOf(pathname: string): View {
  const parts = pathname
    .split('/')
    .filter(Boolean)
    .map((p) => decodeURIComponent(p));
  const [what, namespace, name] = parts;
  if (parts.length === 0) return { kind: 'runs' };
  const list = what === 'runs' || what === 'scenarios' ? what : undefined;
  if (!list) return { kind: 'missing' };
  if (parts.length === 1) return { kind: list };
  if (parts.length !== 3 || !namespace || !name) return { kind: 'missing' };
  return { kind: list === 'runs' ? 'run' : 'scenario', namespace, name };
}
