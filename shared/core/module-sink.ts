// Where a module's pod sends its result: K_SINK. The function gives it its own
// K_SINK (and K_CA_CERTS) when that is all a SinkBinding would inject, and
// labels the Job so that Eventing's SinkBinding webhook skips it. With OIDC
// or trust bundles on, the SinkBinding `cascade-modules` injects them as
// before. See docs/adr/0008-module-sink-from-the-function.md. Pure: no I/O.
import type { V1EnvVar, V1PodSpec } from '@kubernetes/client-node';

/** The label Eventing's binding webhooks and SinkBinding subjects skip (knative.dev/pkg duck.BindingExcludeLabel). */
export const BINDING_EXCLUDE_LABEL = 'bindings.knative.dev/exclude';
/** The label that Eventing's binding webhooks need on an object in their inclusion mode (duck.BindingIncludeLabel). */
export const BINDING_INCLUDE_LABEL = 'bindings.knative.dev/include';

/** The Job's label for Eventing's SinkBinding webhook: skip it when the function gave K_SINK, else admit it in either mode. */
export function bindingLabel(sink: ModuleSink | undefined): Record<string, string> {
  return sink ? { [BINDING_EXCLUDE_LABEL]: 'true' } : { [BINDING_INCLUDE_LABEL]: 'true' };
}

/** What a module Job's containers get when the function gives it K_SINK itself. */
export interface ModuleSink {
  url: string;
  caCerts?: string | undefined;
}

/** What the process's own SinkBinding gave it. */
export interface OwnSink {
  sink: string | undefined;
  caCerts: string | undefined;
  /** An OIDC token is mounted: Eventing's authentication-oidc is on. */
  oidcToken: boolean;
  /** Trust bundles are mounted: ConfigMaps labelled networking.knative.dev/trust-bundle exist. */
  trustBundles: boolean;
}

/** The K_SINK to give module Jobs; undefined leaves them to the SinkBinding `cascade-modules`. */
export function moduleSinkOf(own: OwnSink): ModuleSink | undefined {
  if (!own.sink || own.oidcToken || own.trustBundles) return undefined;
  return own.caCerts ? { url: own.sink, caCerts: own.caCerts } : { url: own.sink };
}

/** The variables a SinkBinding would set, put on every container and init container, replacing the template's own. */
export function applyModuleSink(spec: V1PodSpec, sink: ModuleSink): void {
  const vars: V1EnvVar[] = [{ name: 'K_SINK', value: sink.url }];
  if (sink.caCerts) vars.push({ name: 'K_CA_CERTS', value: sink.caCerts });
  for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
    const keep = (c.env ?? []).filter((e) => e.name !== 'K_SINK' && e.name !== 'K_CA_CERTS');
    c.env = [...keep, ...vars];
  }
}
