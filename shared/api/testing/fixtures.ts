// Objects shaped like the ones the Go controller wrote, for the API tests.
import { API_VERSION, CASCADE_AUTO_OPERATOR_KIND, CASCADE_RUN_KIND } from '../group.ts';

export function goModule(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    modulename: name,
    configuration: { foo: 'bar', thresh: '128' },
    backoffLimit: 0,
    template: {
      metadata: { creationTimestamp: null },
      spec: {
        containers: [{ name, image: `registry.example/${name}:1.0.0`, resources: {}, imagePullPolicy: 'IfNotPresent' }],
        restartPolicy: 'OnFailure',
      },
    },
    ...extra,
  };
}

export function goScenario(): { cascademodules: Record<string, unknown>[] } {
  return { cascademodules: [goModule('grayscale'), goModule('binarization'), goModule('diff')] };
}

/** A CascadeRun as the Go controller created and updated it. */
export function goCascadeRun(): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: CASCADE_RUN_KIND,
    metadata: {
      name: 'cascadeautooperator-ip-abcde',
      namespace: 'cascade-operator',
      uid: '0b9f6a2e-6a49-4c1e-9d7e-2f0d6b1e6c11',
      resourceVersion: '4242',
      generation: 1,
      creationTimestamp: '2024-05-01T10:00:00Z',
      managedFields: [{ manager: 'cascadescenariocontroller' }],
    },
    spec: {
      ob: 'oname-1',
      src: '',
      pid: 'abcdef0123',
      scenarioname: 'cascadeautooperator-ip',
      modules: ['grayscale', 'binarization', 'diff'],
    },
    status: {
      result: ['grayscale: ok\n', 'binarization: ok\n'],
      info: 'http://example.com/test-out/cascadeautooperator-ip/abcdef0123/abcdef0123-final.zip',
    },
  };
}

/** The same run written by Cascade: scenario snapshot and rich status. */
export function cascadeRun(): Record<string, unknown> {
  const run = goCascadeRun();
  const spec = run.spec as Record<string, unknown>;
  return {
    ...run,
    spec: { ...spec, turlinfo: 'http://example.com/in/abc.zip', cascademodules: goScenario().cascademodules },
    status: {
      phase: 'Running',
      observedGeneration: 1,
      conditions: [
        {
          type: 'Succeeded',
          status: 'Unknown',
          reason: 'Running',
          message: 'module binarization (2/3) running',
          lastTransitionTime: '2024-05-01T10:00:01Z',
          observedGeneration: 1,
        },
      ],
      currentStep: 1,
      currentModule: 'binarization',
      startTime: '2024-05-01T10:00:01Z',
      modules: [
        {
          step: 0,
          name: 'grayscale',
          jobName: 'cascadeautooperator-ip-grayscale-abcde',
          phase: 'Succeeded',
          startTime: '2024-05-01T10:00:01Z',
          completionTime: '2024-05-01T10:00:30.123Z',
          result: 'ok',
        },
        { step: 1, name: 'binarization', jobName: 'cascadeautooperator-ip-binarization-abcde', phase: 'Running' },
      ],
      result: ['grayscale: ok\n'],
      notified: false,
    },
  };
}

/** A CascadeAutoOperator as the Go operator's CRD allowed it. */
export function goCascadeAutoOperator(): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: CASCADE_AUTO_OPERATOR_KIND,
    metadata: {
      name: 'cascadeautooperator-ip',
      namespace: 'cascade-operator',
      finalizers: ['shutdown.cascade.cascade.net/finalizer'],
    },
    spec: {
      scenarioconfig: goScenario(),
      replicas: 1,
      template: { spec: { containers: [{ name: 'controller', image: 'registry.example/controller:2' }] } },
    },
    status: { active: 1, succeeded: 3, failed: 1, result: 'Success' },
  };
}

/** A copy of `obj` without `keys`. */
export function without(obj: unknown, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj as Record<string, unknown>).filter(([k]) => !keys.includes(k)));
}
