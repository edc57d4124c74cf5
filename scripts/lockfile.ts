// What `npm ci` needs of package-lock.json: every dependency a package names
// has an entry where Node.js' resolution finds it, whatever the platform. That
// covers required and optional dependencies, peers not marked optional, and
// the root's dev dependencies. npm 11 refuses a lock that lacks one ("Missing:
// <name>@ from lock file"). `npm install` writes such a lock without a word
// when an optional dependency cannot be fetched (vite 8.4.0's
// napi-windows-process-start-time, which the registry does not serve). Pure:
// the lock comes in parsed.

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

/** The names `entry` needs installed beside or above it. */
function needed(entry: LockEntry, isRoot: boolean): string[] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter(
    (name) => !entry.peerDependenciesMeta?.[name]?.optional,
  );
  return [
    ...Object.keys(entry.dependencies ?? {}),
    ...Object.keys(entry.optionalDependencies ?? {}),
    ...(isRoot ? Object.keys(entry.devDependencies ?? {}) : []),
    ...peers,
  ];
}

/** The lock key `name` resolves to from the package at `from`, as Node.js looks it up (nearest node_modules first). */
export function resolve(packages: Lockfile['packages'], from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const key = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[key]) return key;
    if (!base) return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent < 0 ? '' : base.slice(0, parent);
  }
}

/** Every `<package> -> <dependency>` the lock names but has no entry for ('' is the project). */
export function missingFromLock(lock: Lockfile): string[] {
  const missing: string[] = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    for (const name of new Set(needed(entry, key === ''))) {
      if (!resolve(lock.packages, key, name)) missing.push(`${key || '(root)'} -> ${name}`);
    }
  }
  return missing;
}
