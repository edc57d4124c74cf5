import { describe, expect, it } from 'vitest';
import { ANNOTATION_CANCEL_REQUESTED_AT } from '../names.ts';
import { pendingRequests, type RunObject } from './run-requests.ts';

const at = (value: string) => ({ [ANNOTATION_CANCEL_REQUESTED_AT]: value });

describe("requests pending in a CascadeRun's annotations", () => {
  it.each([
    ['no annotations', { metadata: {} }, []],
    ['no status yet', { metadata: { annotations: at('t1') } }, ['cancel-requested-at=t1']],
    [
      'a value not handled yet',
      { metadata: { annotations: at('t2') }, status: { lastHandledCancel: 't1' } },
      ['cancel-requested-at=t2'],
    ],
    ['the value handled', { metadata: { annotations: at('t1') }, status: { lastHandledCancel: 't1' } }, []],
    ['an empty value', { metadata: { annotations: at('') } }, []],
    [
      'other annotations only',
      { metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } } },
      [],
    ],
  ] as Array<[string, RunObject, string[]]>)('%s', (_name, run, expected) => {
    expect(pendingRequests(run).map((p) => `${p.request.annotation.split('/')[1]}=${p.value}`)).toEqual(expected);
  });
});
