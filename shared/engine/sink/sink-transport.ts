// How run-end events reach K_SINK on a cluster with Eventing's transport
// encryption or OIDC authentication on. SinkBinding then injects, beside
// K_SINK:
// | feature                          | injected                               | used here                       |
// |----------------------------------|----------------------------------------|---------------------------------|
// | transport-encryption             | K_CA_CERTS: the sink's CA, PEM text    | trusted beside the system CAs   |
// | transport-encryption             | /knative-custom-certs: trust bundles   | trusted too, read at start-up   |
// | authentication-oidc              | /oidc/token: a projected Secret's key  | `Authorization: Bearer <token>` |
// Eventing renews the token in its Secret and the kubelet rewrites the file,
// so the file is read again before each attempt, never cached.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { getCACertificates } from 'node:tls';
import type { Logger } from 'pino';
import { trustBundleFiles, type Config } from '../../config.ts';
import type { Extensions } from '../../ce-overrides.ts';
import { Agent, fetch as undiciFetch } from 'undici';

/** The part of fetch the sender uses. */
export type SinkFetch = (
  url: string,
  init: {
    method: 'POST';
    headers: Record<string, string>;
    body: string;
    signal: AbortSignal;
  },
) => Promise<{ ok: boolean; status: number; body: { cancel(): Promise<void> } | null }>;

/** K_SINK, K_CE_OVERRIDES' extensions, and K_CA_CERTS and the OIDC token when SinkBinding injected them. */
export interface Sink {
  url: string | undefined;
  extensions: Extensions;
  transport?: SinkTransport;
}

export interface SinkTransport {
  fetch: SinkFetch;
  /** The Authorization header for this attempt, if a token is mounted. */
  authorization(): Promise<string | undefined>;
}

/** No CA beyond the system's and no token: plain fetch. */
export const PLAIN_TRANSPORT: SinkTransport = { fetch, authorization: async () => undefined };

export interface SinkTransportOptions {
  /** K_CA_CERTS: PEM certificates to trust beside the system CAs. */
  caCerts: string | undefined;
  /** The OIDC token file (config.ts OIDC_TOKEN_FILE on a cluster). */
  tokenFile: string;
  /** Where SinkBinding mounts the cluster's trust bundles (config.ts TRUST_BUNDLE_DIR on a cluster). */
  trustBundleDir: string;
}

/** The PEM text of every file in the trust bundle directory; none when it is absent (no bundles, or not in a pod). */
function trustBundle(dir: string): string {
  return trustBundleFiles(dir)
    .map((f) => {
      try {
        return readFileSync(join(dir, f), 'utf8');
      } catch {
        return '';
      }
    })
    .join('\n');
}

/** The bearer header from the token file; none when the file is absent or empty (OIDC off). */
async function bearer(tokenFile: string): Promise<string | undefined> {
  try {
    const token = (await readFile(tokenFile, 'utf8')).trim();
    return token ? `Bearer ${token}` : undefined;
  } catch {
    return undefined;
  }
}

/** The PEM certificates of K_CA_CERTS that parse, and how many blocks did not. */
function certificates(caCerts: string): { good: string[]; bad: number } {
  const blocks = caCerts.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const good = blocks.filter((pem) => {
    try {
      new X509Certificate(pem);
      return true;
    } catch {
      return false;
    }
  });
  return { good, bad: blocks.length - good.length };
}

/**
 * A fetch that trusts K_CA_CERTS beside the system CAs, as Knative's own
 * senders do. PEM that does not parse is logged and left out: the process
 * still starts, and an https sink it cannot verify fails as any refused send.
 */
function trustingFetch(caCerts: string, log: Logger): SinkFetch {
  const { good, bad } = certificates(caCerts);
  if (bad > 0 || good.length === 0) {
    log.warn(
      { parsed: good.length, unparsed: bad },
      'K_CA_CERTS or a trust bundle holds PEM certificates that do not parse: they are left out, and the sink is verified against the rest and the system CAs',
    );
  }
  if (good.length === 0) return fetch;
  const dispatcher = new Agent({ connect: { ca: [...getCACertificates('default'), ...good] } });
  return (url, init) => undiciFetch(url, { ...init, dispatcher });
}

export function sinkTransport(options: SinkTransportOptions, log: Logger): SinkTransport {
  const pem = [options.caCerts ?? '', trustBundle(options.trustBundleDir)].join('\n');
  return {
    fetch: pem.trim() ? trustingFetch(pem, log) : fetch,
    authorization: () => bearer(options.tokenFile),
  };
}

/** The sink of a process (the function or the janitor) as its configuration gives it. */
export function sinkOf(
  config: Pick<Config, 'sink' | 'ceExtensions' | 'sinkCaCerts' | 'oidcTokenFile' | 'trustBundleDir'>,
  log: Logger,
): Sink {
  const transport = sinkTransport(
    { caCerts: config.sinkCaCerts, tokenFile: config.oidcTokenFile, trustBundleDir: config.trustBundleDir },
    log,
  );
  return { url: config.sink, extensions: config.ceExtensions, transport };
}
