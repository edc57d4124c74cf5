// Scenario modules whose pods run as real containers on the real node
// (node.ts): the module image (images.ts) with a node selector for the node's
// label and a toleration of its taint, the ordinary Kubernetes means by which
// a scenario chooses where its modules run. The module reads its
// configuration keys exitcode, lines, interval and allocate (module.sh).
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
 * A module as the seed scenarios write one (backoffLimit 0, the image
 * present, so not pulled), except restartPolicy Never: a failed pod stays, and
 * so does its log.
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
        containers: [{ name: modulename, image: MODULE_IMAGE, imagePullPolicy: 'IfNotPresent', resources }],
        restartPolicy: 'Never',
      },
    },
  };
}
