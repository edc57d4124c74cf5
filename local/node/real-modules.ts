// Scenario modules whose pods run as real containers on the real node
// (node.ts): the module image (images.ts), a node selector for the node's
// label and a toleration of its taint. These are the ordinary Kubernetes
// means by which a scenario chooses where its modules run. The module reads
// its configuration keys exitcode, lines, interval, allocate and result
// (module.sh).
import type { CascadeModule } from '../../shared/api/scenario.ts';
import { MODULE_IMAGE } from './images.ts';
import { REAL_NODE } from './node-config.ts';

/** What a module's pod spec needs to run on the real node. */
export const onRealNode = {
  nodeSelector: { [REAL_NODE.label.key]: REAL_NODE.label.value },
  tolerations: [
    { key: REAL_NODE.taint.key, operator: 'Equal', value: REAL_NODE.taint.value, effect: REAL_NODE.taint.effect },
  ],
};

/**
 * What the `restricted` Pod Security Standard asks of a container. In a
 * namespace that enforces it, the Job controller's pods of a module without
 * it are refused (the Job shows FailedCreate events), as the seed's would be.
 */
export const restrictedContainer = {
  runAsNonRoot: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/**
 * A module as the seed scenarios write one (backoffLimit 0, the image
 * present, so not pulled), except restartPolicy Never: a failed pod stays, and
 * so does its log. Its container has the restricted security context.
 */
export function realModule(
  modulename: string,
  configuration: Record<string, string>,
  opts: { memoryLimit?: string } = {},
): CascadeModule {
  const resources = opts.memoryLimit ? { limits: { memory: opts.memoryLimit } } : {};
  return {
    modulename,
    configuration,
    backoffLimit: 0,
    template: {
      metadata: {},
      spec: {
        ...onRealNode,
        containers: [
          {
            name: modulename,
            image: MODULE_IMAGE,
            imagePullPolicy: 'IfNotPresent',
            resources,
            securityContext: restrictedContainer,
          },
        ],
        restartPolicy: 'Never',
      },
    },
  };
}

/** A module of the module image that names no node: the namespace's annotations place it (knative/ on the local cluster). */
export function namespacePlacedModule(modulename: string, configuration: Record<string, string>): CascadeModule {
  const m = realModule(modulename, configuration);
  const spec = { ...m.template.spec! };
  delete spec.nodeSelector;
  delete spec.tolerations;
  return { ...m, template: { ...m.template, spec } };
}
