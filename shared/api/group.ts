/**
 * Names of Cascade's Kubernetes API: group, version, kinds, plurals and the
 * finalizer, compatible with the Go controller (CascadeScenarioController v2).
 */
export const GROUP = 'cascade.cascade.net';
export const VERSION = 'v1alpha1';
/** `apiVersion` of every Cascade object: `cascade.cascade.net/v1alpha1`. */
export const API_VERSION = `${GROUP}/${VERSION}` as const;

export const CASCADE_RUN_KIND = 'CascadeRun';
export const CASCADE_RUN_PLURAL = 'cascaderuns';
export const CASCADE_RUN_SINGULAR = 'cascaderun';
export const CASCADE_RUN_SHORT_NAME = 'crun';

export const CASCADE_AUTO_OPERATOR_KIND = 'CascadeAutoOperator';
export const CASCADE_AUTO_OPERATOR_PLURAL = 'cascadeautooperators';
export const CASCADE_AUTO_OPERATOR_SINGULAR = 'cascadeautooperator';
export const CASCADE_AUTO_OPERATOR_SHORT_NAME = 'cao';

/** `kubectl get cascade` lists both kinds. */
export const CATEGORY = 'cascade';

/** Finalizer the Go controller put on its CascadeAutoOperator. */
export const FINALIZER = 'shutdown.cascade.cascade.net/finalizer';
