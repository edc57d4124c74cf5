// The URL requests go to: --url, else what discover.ts makes of the Knative
// Service and Broker read from the API server (absent CRDs read as absent objects).
import type { Kube } from '../kube/connect.ts';
import { CliError } from '../io.ts';
import { BROKER, clusterLocalHint, discoverEndpoint, isClusterLocal, SERVICE, type Endpoint } from './discover.ts';

async function read(kube: Kube, at: typeof SERVICE | typeof BROKER): Promise<object | undefined> {
  try {
    return await kube.rest<object>(
      'GET',
      `/apis/${at.group}/${at.version}/namespaces/${kube.namespace}/${at.plural}/${at.name}`,
    );
  } catch (error) {
    if ((error as { code?: unknown }).code === 404) return undefined;
    throw error;
  }
}

export async function resolveEndpoint(kube: Kube, url: string | undefined): Promise<Endpoint> {
  if (url) return { kind: 'function', url };
  const found = discoverEndpoint(await read(kube, SERVICE), await read(kube, BROKER), kube.namespace);
  if (!found.ok) throw new CliError(found.reason);
  return found.endpoint;
}

/**
 * A POST to the endpoint, with CASCADE_AUTH_TOKEN as the caller's bearer
 * token when set. A cluster-local URL that cannot be reached says how to reach it.
 */
export async function postTo(
  url: string,
  req: { headers: Record<string, string>; body: string },
  env: Record<string, string | undefined>,
  namespace?: string,
): Promise<{ status: number; text: string }> {
  const auth: Record<string, string> = env.CASCADE_AUTH_TOKEN
    ? { authorization: `Bearer ${env.CASCADE_AUTH_TOKEN}` }
    : {};
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { ...req.headers, ...auth }, body: req.body });
  } catch (error) {
    const why = `cannot reach ${url}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`;
    throw new CliError(isClusterLocal(url) && namespace ? `${why}\n${clusterLocalHint(url, namespace)}` : why);
  }
  return { status: res.status, text: await res.text() };
}
