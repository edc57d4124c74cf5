// What the machine's own network namespace holds in the private ranges
// (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16): addresses and routes. The real
// node keeps its bridge, pods and Services in a namespace of its own, so
// while a cluster runs this stays empty.
import { execFileSync } from 'node:child_process';

const PRIVATE: [number, number][] = [
  [0x0a000000, 8],
  [0xac100000, 12],
  [0xc0a80000, 16],
];

function ipv4(text: string): number | undefined {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

/** True when `cidr` (an address, or address/bits) overlaps a private range. */
export function overlapsPrivate(cidr: string): boolean {
  const [address = '', bitsText] = cidr.split('/');
  const value = ipv4(address);
  if (value === undefined) return false;
  const bits = bitsText === undefined ? 32 : Number(bitsText);
  return PRIVATE.some(([base, prefix]) => {
    const common = Math.min(bits, prefix);
    const mask = common === 0 ? 0 : (~0 << (32 - common)) >>> 0;
    return (value & mask) >>> 0 === (base & mask) >>> 0;
  });
}

interface IpAddr {
  ifname: string;
  addr_info: { local: string; prefixlen: number }[];
}
interface IpRoute {
  dst: string;
  dev?: string;
  table?: string;
}

/** Every address and route of this namespace in a private range, one line each. */
export function privateOnHost(): string[] {
  const ip = (...args: string[]) => JSON.parse(execFileSync('ip', ['-j', '-4', ...args], { encoding: 'utf8' }));
  const addresses = (ip('addr', 'show') as IpAddr[]).flatMap((link) =>
    link.addr_info
      .filter((a) => overlapsPrivate(`${a.local}/${a.prefixlen}`))
      .map((a) => `address ${a.local}/${a.prefixlen} on ${link.ifname}`),
  );
  const routes = (ip('route', 'show', 'table', 'all') as IpRoute[])
    .filter((r) => r.dst !== 'default' && overlapsPrivate(r.dst))
    .map((r) => `route ${r.dst} dev ${r.dev ?? '?'} table ${r.table ?? 'main'}`);
  return [...addresses, ...routes];
}
