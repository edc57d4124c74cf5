// @kubernetes/client-node, loaded when a command first talks to the API
// server: loading it takes about half a second, which --help, version
// --client and a usage error never pay.
type ClientNode = typeof import('@kubernetes/client-node');

let loading: Promise<ClientNode> | undefined;

export function clientNode(): Promise<ClientNode> {
  loading ??= import('@kubernetes/client-node');
  return loading;
}
