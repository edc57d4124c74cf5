// The soak's faults find the pods of a Deployment by the names its ReplicaSet gives.
import { describe, expect, it } from 'vitest';
import { FAULT_ORDER, ofDeployment } from './platform-faults.ts';

describe('the platform faults', () => {
  it("take a Deployment's pods by name, and not another Deployment's of a longer name", () => {
    expect(ofDeployment('autoscaler-6c8b9f7d4-x2x9q', 'autoscaler')).toBe(true);
    expect(ofDeployment('autoscaler-hpa-6c8b9f7d4-x2x9q', 'autoscaler')).toBe(false);
    expect(ofDeployment('mt-broker-ingress-5d4f8c9b7-abcde', 'mt-broker-filter')).toBe(false);
  });

  it('roll out a new revision last, after every kill', () => {
    expect(FAULT_ORDER).toHaveLength(8);
    expect(FAULT_ORDER.at(-1)).toBe('a new revision');
  });
});
