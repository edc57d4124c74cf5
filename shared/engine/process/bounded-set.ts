// A set of the keys added last: at most `capacity`, the oldest out first.
// Adding a key again makes it the newest. What the process remembers to
// spare API calls; correctness never rests on it.
export interface BoundedSet {
  add(key: string): void;
  has(key: string): boolean;
}

export function boundedSet(capacity: number): BoundedSet {
  const keys = new Set<string>();
  return {
    add(key) {
      keys.delete(key);
      keys.add(key);
      if (keys.size > capacity) keys.delete(keys.values().next().value!);
    },
    has: (key) => keys.has(key),
  };
}
