// Which request is which: the page's paths (deep links included), its assets
// and the API. Pure.
import { ACTION_NAMES } from './action-names.ts';

export type Route =
  | { kind: 'page' }
  | { kind: 'asset'; file: 'app.js' | 'style.css' }
  | { kind: 'runs' }
  | { kind: 'run'; namespace: string; name: string }
  | { kind: 'logs'; namespace: string; name: string }
  | { kind: 'scenarios' }
  | { kind: 'scenario'; namespace: string; name: string }
  | { kind: 'stream' }
  | { kind: 'action'; action: (typeof ACTION_NAMES)[number]; namespace: string; name: string };

export type Matched = { route: Route } | { status: 404 | 405 };

/** A Kubernetes name: lower-case letters, digits, '-' and '.'; up to 253 characters. */
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function decode(segment: string): string | undefined {
  try {
    const s = decodeURIComponent(segment);
    return NAME.test(s) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** `ns/name` of a path's two segments, when both are names. */
function named(a: string | undefined, b: string | undefined): { namespace: string; name: string } | undefined {
  const namespace = a === undefined ? undefined : decode(a);
  const name = b === undefined ? undefined : decode(b);
  return namespace && name ? { namespace, name } : undefined;
}

function pagePath(parts: string[]): boolean {
  if (parts.length === 0) return true;
  if (parts[0] !== 'runs' && parts[0] !== 'scenarios') return false;
  return parts.length === 1 || (parts.length === 3 && named(parts[1], parts[2]) !== undefined);
  return false;
}

const LISTS = ['stream', 'runs', 'scenarios'] as const;

/** The reads of one object: `runs/ns/name`, `runs/ns/name/logs`, `scenarios/ns/name`. */
const OBJECT_READS: Record<string, 'run' | 'logs' | 'scenario'> = {
  'runs/': 'run',
  'runs/logs': 'logs',
  'scenarios/': 'scenario',
};

function apiGet(parts: string[]): Route | undefined {
  const [what = '', ns, name, sub = '', ...rest] = parts;
  if (rest.length > 0) return undefined;
  if (ns === undefined) return LISTS.find((l) => l === what) ? { kind: what as (typeof LISTS)[number] } : undefined;
  const at = named(ns, name);
  const kind = Object.hasOwn(OBJECT_READS, `${what}/${sub}`) ? OBJECT_READS[`${what}/${sub}`] : undefined;
  return at && kind ? { kind, ...at } : undefined;
}

function apiPost(parts: string[]): Route | undefined {
  const [what, ns, name, action, ...rest] = parts;
  const at = named(ns, name);
  const known = ACTION_NAMES.find((a) => a === action);
  return what === 'runs' && at && known && rest.length === 0 ? { kind: 'action', action: known, ...at } : undefined;
}

const isGet = (method: string) => method === 'GET' || method === 'HEAD';

function matchApi(method: string, parts: string[]): Matched {
  const asGet = apiGet(parts);
  const asPost = apiPost(parts);
  if (asGet) return isGet(method) ? { route: asGet } : { status: 405 };
  if (asPost) return method === 'POST' ? { route: asPost } : { status: 405 };
  return { status: 404 };
}

export function matchRoute(method: string, pathname: string): Matched {
  const parts = pathname.split('/').filter((p) => p !== '');
  if (parts[0] === 'api') return matchApi(method, parts.slice(1));
  const asset = parts.length === 1 && (parts[0] === 'app.js' || parts[0] === 'style.css') ? parts[0] : undefined;
  const route: Route | undefined = asset
    ? { kind: 'asset', file: asset }
    : pagePath(parts)
      ? { kind: 'page' }
      : undefined;
  if (!route) return { status: 404 };
  return isGet(method) ? { route } : { status: 405 };
}
