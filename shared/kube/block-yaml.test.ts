import fc from 'fast-check';
import { dump, load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { parseBlockYaml } from './block-yaml.ts';

const KUBECTL = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJ2VE==
    server: https://127.0.0.1:36435
  name: kind-kind
- cluster:
    insecure-skip-tls-verify: true
    server: https://10.0.0.1:6443
    tls-server-name: "api.example"
  name: 'it''s'
contexts:
- context:
    cluster: kind-kind
    namespace: cascade-operator
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
# an exec plugin, as EKS writes it
- name: arn:aws:eks:eu-west-1:123456789012:cluster/prod
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - eu-west-1
      - eks
      command: aws
      env:
      - name: AWS_PROFILE
        value: prod
      interactiveMode: IfAvailable
      provideClusterInfo: false
- name: kind-kind
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
    client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t
    token: ~
`;

describe('the plain block YAML of kubeconfigs', () => {
  it("reads what kubectl and kind write as js-yaml does: lists at their key's indent, quotes, {}, booleans, nulls, comments", () => {
    expect(parseBlockYaml(KUBECTL)).toEqual(load(KUBECTL));
    expect(parseBlockYaml('a:\n  b:\n    - 1\n    - x\n  c: []\n')).toEqual({ a: { b: [1, 'x'], c: [] } });
    expect(parseBlockYaml('')).toBeNull();
  });

  it('answers undefined past the subset, for js-yaml to read', () => {
    for (const text of [
      'a: &x 1\nb: *x\n',
      'a: |\n  text\n',
      'a: {b: 1}\n',
      'a: 1 # a comment\n',
      'a:\n\tb: 1\n',
      'a: 1\n---\nb: 2\n',
      'a: 2026-01-01\n',
      'a: 0x1F\n',
      'a: 012\n',
      'a: "tab\\there"\n',
      'a: one\n  two\n',
      'a: 1\na: 2\n',
      'a: !!str 1\n',
      '- - 1\n',
    ])
      expect(parseBlockYaml(text), text).toBeUndefined();
  });

  it('never reads a document otherwise than js-yaml: the same value, or undefined', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const leaf = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom('https://h:6443', 'arn:aws:x', "it's", 'a #b', '- x', 'yes', '~', '0o7', '1e5'),
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(key, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(tree, (doc) => {
        const text = dump(doc);
        const ours = parseBlockYaml(text);
        if (ours !== undefined) expect(ours).toEqual(load(text));
      }),
      { numRuns: 2000 },
    );
  });
});
