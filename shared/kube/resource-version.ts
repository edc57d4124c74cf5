// Which of two copies of an object is later, by resourceVersion. The API
// server's versions are etcd revisions: ordered numbers. A version of any
// other kind is never taken as later, so a copy is then kept as it is.
export function isLater(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) > BigInt(b);
}
