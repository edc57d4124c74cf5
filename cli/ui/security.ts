// The ui's guards, decided here and applied by the server: the Host header
// (DNS rebinding), the per-start token of actions, and the response headers
// (a strict Content-Security-Policy). Pure.
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export const isLoopback = (address: string): boolean => LOOPBACK.has(address) || address.startsWith('127.');

/** host:port as a Host header names it (an IPv6 address in brackets). */
export function hostPort(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * The Host headers the server answers: the address it serves, and on loopback
 * the other loopback names. A page served from any other name (a DNS name
 * pointed at 127.0.0.1 by an attacker) is refused.
 */
export function allowedHosts(address: string, port: number): Set<string> {
  const names = isLoopback(address) ? ['127.0.0.1', 'localhost', '::1', address] : [address];
  return new Set(names.map((a) => hostPort(a, port).toLowerCase()));
}

export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string>): boolean {
  return host !== undefined && allowed.has(host.toLowerCase());
}

/** An Origin header is fine when absent (same-origin GET) or one of the served origins. */
export function originAllowed(origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && allowed.has(url.host.toLowerCase());
  } catch {
    return false;
  }
}

/** Compares in constant time, so that the answer's timing tells nothing of the token. */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Only the page's own script, style and API: no inline code, no other origin, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers of every answer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};
