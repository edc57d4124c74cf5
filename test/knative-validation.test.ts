// The Knative Services of knative/ and deploy/http are accepted by Knative
// Serving itself: its validation code (knative.dev/serving v0.50.0, the
// admission webhook's checks, built from the Go module proxy by
// local/knative/validate/) with every feature flag at its default. A default
// install refused the former `POD_NAMESPACE` fieldRef (kubernetes.podspec-fieldref
// is off); these copies show that it still would, and what it says of a
// pod-level securityContext or none at all, so the test can fail.
import { join } from 'node:path';
import { dump, loadAll } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { kubectlPath } from '../local/cluster/crds.ts';
import { repoRoot } from '../local/cluster/paths.ts';
import { runCommand } from '../local/cluster/run-command.ts';
import { ensureKnativeValidate, validateServices } from '../local/knative/validate/knative-validate.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- YAML documents read as they are
type Doc = any;
let bin = '';
let service: Doc;
const kustomize = async (dir: string) => runCommand(kubectlPath(), ['kustomize', join(repoRoot, ...dir.split('/'))]);
const validate = (docs: Doc[]) => validateServices(bin, docs.map((d) => dump(d, { noRefs: true })).join('---\n'));
const container = (s: Doc) => s.spec.template.spec.containers[0];

beforeAll(async () => {
  bin = await ensureKnativeValidate();
  service = (loadAll(await kustomize('knative')) as Doc[]).find(
    (d) => d?.kind === 'Service' && d.apiVersion === 'serving.knative.dev/v1' && d.metadata?.name === 'cascade',
  );
}, 1_200_000);

describe("Knative Serving's validation, default feature flags", () => {
  it('accepts the Services of kubectl kustomize knative/ (the function and the dead-letter sink), without a warning', async () => {
    const results = await validateServices(bin, await kustomize('knative'));
    expect(results.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'cascade', errors: '', warnings: '' },
      { name: 'cascade-dead-letters', errors: '', warnings: '' },
    ]);
  });

  it('accepts the Service of kubectl kustomize deploy/http, without a warning', async () => {
    expect(await validateServices(bin, await kustomize('deploy/http'))).toEqual([
      { name: 'cascade-http', errors: '', warnings: '' },
    ]);
  });

  it('refuses POD_NAMESPACE from the downward API (fieldRef), as the Service had it', async () => {
    const s = structuredClone(service);
    container(s).env.push({ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } });
    const [verdict] = await validate([s]);
    expect(verdict!.errors).toMatch(
      /must not set the field\(s\): spec\.template\.spec\.containers\[0\]\.env\[\d+\]\.valueFrom\.fieldRef/,
    );
  });

  it('refuses a pod-level securityContext (kubernetes.podspec-securitycontext is off): so it sits on the container', async () => {
    const s = structuredClone(service);
    s.spec.template.spec.securityContext = { runAsNonRoot: true };
    const [verdict] = await validate([s]);
    expect(verdict!.errors).toContain('must not set the field(s): spec.template.spec.securityContext');
  });

  it('warns of the insecure Kubernetes defaults when the container has no securityContext', async () => {
    const s = structuredClone(service);
    delete container(s).securityContext;
    const [verdict] = await validate([s]);
    expect(verdict!.errors).toBe('');
    for (const field of ['allowPrivilegeEscalation', 'capabilities', 'runAsNonRoot', 'seccompProfile']) {
      expect(verdict!.warnings).toContain(`spec.template.spec.containers[0].securityContext.${field}`);
    }
  });
});
