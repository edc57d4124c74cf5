import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { egressSelectorFile } from '../cluster/paths.ts';
import { describe, expect, it } from 'vitest';
import {
  cniConfig,
  containerdConfig,
  corefile,
  kubeletArgs,
  kubeletConfig,
  kubeProxyArgs,
  nodePaths,
  REAL_NODE,
  registryHosts,
} from './node-config.ts';
import { PAUSE_IMAGE } from './images.ts';

describe("the real node's configuration", () => {
  it('containerd: private socket and directories, restricted oom_score_adj, runc and CNI from the build, the pause image pinned, the streaming server on a fixed port', () => {
    const toml = containerdConfig('/bin-dir');
    for (const line of [
      `address = '${nodePaths.containerdSocket}'`,
      `root = '${nodePaths.containerdRoot}'`,
      'restrict_oom_score_adj = true',
      'netns_mounts_under_state_dir = true',
      "BinaryName = '/bin-dir/runc'",
      'SystemdCgroup = false',
      "bin_dirs = ['/bin-dir/cni']",
      `sandbox = '${PAUSE_IMAGE}'`,
      'imports = []',
      "stream_server_port = '10010'",
    ])
      expect(toml).toContain(line);
  });

  it('CNI: the bridge with the node address as gateway, host-local in the node root, portmap on nftables', () => {
    const conf = JSON.parse(cniConfig());
    expect(conf.plugins.map((p: { type: string }) => p.type)).toEqual(['bridge', 'portmap']);
    expect(conf.plugins[0]).toMatchObject({
      bridge: REAL_NODE.bridge,
      isGateway: true,
      ipam: { ranges: [[{ subnet: REAL_NODE.podCidr, gateway: REAL_NODE.address }]], dataDir: nodePaths.cniDataDir },
    });
    expect(conf.plugins[1]).toMatchObject({ backend: 'nftables' });
  });

  it('kubelet: cgroupfs on cgroups v1 under its own root, the taint, the node address, the API server as client CA', () => {
    const yaml = kubeletConfig('/pki/ca.crt');
    for (const line of [
      'cgroupDriver: cgroupfs',
      `cgroupRoot: ${REAL_NODE.cgroupRoot}`,
      'failCgroupV1: false',
      'failSwapOn: false',
      `  x509: { clientCAFile: /pki/ca.crt }`,
      `address: ${REAL_NODE.address}`,
      `containerRuntimeEndpoint: unix://${nodePaths.containerdSocket}`,
      `  - { key: ${REAL_NODE.taint.key}, value: ${REAL_NODE.taint.value}, effect: NoSchedule }`,
    ])
      expect(yaml.split('\n')).toContain(line);
    expect(kubeletArgs('/k')).toContain(`--node-labels=${REAL_NODE.label.key}=${REAL_NODE.label.value},type=real`);
    expect(kubeletArgs('/k')).toContain(`--node-ip=${REAL_NODE.address}`);
  });

  it('kube-proxy: nftables mode, conntrack left alone, endpoints on loopback', () => {
    const args = kubeProxyArgs('/k');
    expect(args).toContain('--proxy-mode=nftables');
    expect(args).toContain('--conntrack-max-per-core=0');
    expect(args.filter((a) => a.includes('bind-address')).every((a) => a.includes('=127.0.0.1:'))).toBe(true);
  });

  it("CoreDNS: on the bridge address, the kubelet's cluster DNS, serving cluster.local and forwarding nothing", () => {
    const conf = corefile('/dns.kubeconfig');
    expect(conf).toContain(`bind ${REAL_NODE.address}`);
    expect(conf).toContain('kubernetes cluster.local in-addr.arpa ip6.arpa {');
    expect(conf).toContain('kubeconfig /dns.kubeconfig');
    expect(conf).not.toContain('forward');
    expect(kubeletConfig('/ca').split('\n')).toContain(`clusterDNS: [${REAL_NODE.address}]`);
  });

  it("CoreDNS's build has the plugins of its Corefile and no other", () => {
    const script = readFileSync(new URL('build.sh', import.meta.url), 'utf8');
    const built = /^COREDNS_PLUGINS=\(([^)]*)\)$/m.exec(script)?.[1]?.split(' ');
    // a plugin is a line of the server block, one level in: `    name args`
    const used = corefile('/dns.kubeconfig')
      .split('\n')
      .flatMap((line) => /^ {4}([a-z_0-9]+)\b/.exec(line)?.[1] ?? []);
    expect(built).toEqual(['bind', 'errors', 'cache', 'kubernetes']);
    expect([...used].sort()).toEqual([...built!].sort());
  });

  it("the API server's egress goes to the node's door proxy", () => {
    const config = load(readFileSync(egressSelectorFile, 'utf8')) as {
      egressSelections: {
        name: string;
        connection: { proxyProtocol: string; transport: { uds: { udsName: string } } };
      }[];
    };
    expect(config.egressSelections).toEqual([
      {
        name: 'cluster',
        connection: { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: REAL_NODE.door } } },
      },
    ]);
  });

  it('containerd pulls from the local registry over plain HTTP, on the port the registry listens on', () => {
    const hosts = registryHosts();
    const host = `127.0.0.1:${REAL_NODE.registry.port}`;
    expect(hosts.file).toBe(`${nodePaths.registryHostsDir}/${host}/hosts.toml`);
    expect(hosts.text).toContain(`server = "http://${host}"`);
    expect(containerdConfig('/bin')).toContain(`config_path = '${nodePaths.registryHostsDir}'`);
  });
});
