// The real node's settings and the configuration files of its parts
// (containerd, CNI, kubelet, kube-proxy). Pure: paths and names in, text out.
// The names are fixed: one real node runs on a machine at a time (node.ts
// holds a lock for it), and host.sh uses the same ones.
import { PAUSE_IMAGE } from './images.ts';

export const REAL_NODE = {
  name: 'cascade-real-node',
  /** Where the node keeps its state (host.sh removes it). */
  root: '/var/lib/cascade-node',
  /** Its sockets and runtime state (host.sh removes it). */
  run: '/run/cascade-node',
  /** The network namespace of the node, its bridge, pods and Services (host.sh makes it). */
  netns: 'cascade-node',
  bridge: 'cascade0',
  podCidr: '10.88.0.0/24',
  /** The bridge's address in the node's namespace: the node's address and the pods' gateway. */
  address: '10.88.0.1',
  /** The door proxy into the node's namespace (door.ts): the API server's egress, the host's way in. */
  door: '/run/cascade-node/door.sock',
  /** The node's way out to the API server: a Unix socket piped to its 127.0.0.1 port. */
  apiserverSocket: '/run/cascade-node/apiserver.sock',
  /**
   * The 127.0.0.1 port where the host reaches the Broker's ingress, and the
   * Service's fixed ClusterIP behind it (in the Service range's static band,
   * which Kubernetes leaves to addresses asked for).
   */
  brokerIngress: { hostPort: 31080, clusterIp: '10.96.0.80', port: 80 },
  /** The local registry's port, on 127.0.0.1 of both namespaces (local/registry/registry.ts). */
  registry: { port: 5001, socket: '/run/cascade-node/registry.sock', storage: '/var/lib/cascade-node/registry' },
  /** The cgroup under which the kubelet puts the pods, in each cgroup v1 controller. */
  cgroupRoot: '/cascade-node',
  /** The label a module's nodeSelector names, and the taint its tolerations must tolerate. */
  label: { key: 'cascade.cascade.net/node', value: 'real' },
  taint: { key: 'cascade.cascade.net/node', value: 'real', effect: 'NoSchedule' },
  kubeletPort: 10250,
  kubeletHealthzPort: 10248,
  kubeProxyHealthzPort: 10256,
  kubeProxyMetricsPort: 10249,
  /**
   * containerd's CRI streaming server (exec, attach, port-forward), on
   * 127.0.0.1 of the node's namespace. Fixed and below the ephemeral range:
   * a random one could be the API server's port, which the node's door takes.
   */
  streamServerPort: 10010,
  /** CoreDNS's identity towards the API server (join.ts gives it read access). */
  dnsUser: 'cascade-coredns',
} as const;

export const nodePaths = {
  containerdRoot: `${REAL_NODE.root}/containerd`,
  containerdState: `${REAL_NODE.run}/containerd`,
  containerdSocket: `${REAL_NODE.run}/containerd.sock`,
  containerdConfig: `${REAL_NODE.root}/containerd.toml`,
  cniConfDir: `${REAL_NODE.root}/cni/net.d`,
  /** containerd's hosts.toml per registry: the local one speaks plain HTTP. */
  registryHostsDir: `${REAL_NODE.root}/certs.d`,
  cniDataDir: `${REAL_NODE.root}/cni/networks`,
  kubeletRoot: `${REAL_NODE.root}/kubelet`,
  kubeletConfig: `${REAL_NODE.root}/kubelet.yaml`,
  kubeletCerts: `${REAL_NODE.root}/kubelet-pki`,
  podLogs: `${REAL_NODE.root}/pod-logs`,
  runcRoot: `${REAL_NODE.run}/runc`,
  corefile: `${REAL_NODE.root}/Corefile`,
} as const;

/**
 * containerd's configuration (version 3): the CRI plugin on a private socket
 * and directories, runc with cgroupfs, CNI from the node's build, the pause
 * image pinned so that nothing is pulled, the streaming server on its fixed
 * port. Why restrict_oom_score_adj: a VM whose capability bounding set lacks
 * CAP_SYS_RESOURCE cannot lower a process's oom_score_adj, and every sandbox
 * would fail without it.
 */
export function containerdConfig(binDir: string): string {
  const p = nodePaths;
  return `version = 3
root = '${p.containerdRoot}'
state = '${p.containerdState}'
imports = []

[grpc]
  address = '${p.containerdSocket}'

[ttrpc]
  address = '${p.containerdSocket}.ttrpc'

[plugins]
  [plugins.'io.containerd.grpc.v1.cri']
    stream_server_address = '127.0.0.1'
    stream_server_port = '${REAL_NODE.streamServerPort}'

  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = '${PAUSE_IMAGE}'
    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = '${p.registryHostsDir}'

  [plugins.'io.containerd.cri.v1.runtime']
    restrict_oom_score_adj = true
    netns_mounts_under_state_dir = true
    enable_cdi = false
    disable_apparmor = true
    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
        runtime_type = 'io.containerd.runc.v2'
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
          BinaryName = '${binDir}/runc'
          Root = '${p.runcRoot}'
          SystemdCgroup = false
    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dirs = ['${binDir}/cni']
      conf_dir = '${p.cniConfDir}'

  [plugins.'io.containerd.nri.v1.nri']
    disable = true
`;
}

/** containerd's hosts.toml for the local registry (local/registry/): pulled over plain HTTP on loopback. */
export function registryHosts(): { file: string; text: string } {
  const host = `127.0.0.1:${REAL_NODE.registry.port}`;
  return {
    file: `${nodePaths.registryHostsDir}/${host}/hosts.toml`,
    text: `server = "http://${host}"\n\n[host."http://${host}"]\n  capabilities = ["pull", "resolve"]\n`,
  };
}

/** The pod network: a bridge with host-local addresses, and portmap with its nftables backend. */
export function cniConfig(): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'cascade',
      plugins: [
        {
          type: 'bridge',
          bridge: REAL_NODE.bridge,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: REAL_NODE.podCidr, gateway: REAL_NODE.address }]],
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: nodePaths.cniDataDir,
          },
        },
        { type: 'portmap', capabilities: { portMappings: true }, backend: 'nftables' },
      ],
    },
    null,
    2,
  );
}

/**
 * The KubeletConfiguration: cgroupfs under a cgroup root of its own, for
 * cgroups v1 without systemd, and no swap check. Its API, which serves the API
 * server's log requests, takes client certificates of the cluster's CA and
 * asks SubjectAccessReviews. Low eviction thresholds suit a shared disk. The
 * taint keeps away every pod that does not tolerate it.
 */
export function kubeletConfig(caCert: string): string {
  const p = nodePaths;
  const lines = [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    `address: ${REAL_NODE.address}`,
    `port: ${REAL_NODE.kubeletPort}`,
    'readOnlyPort: 0',
    'healthzBindAddress: 127.0.0.1',
    `healthzPort: ${REAL_NODE.kubeletHealthzPort}`,
    'authentication:',
    '  anonymous: { enabled: false }',
    '  webhook: { enabled: true }',
    `  x509: { clientCAFile: ${caCert} }`,
    'authorization: { mode: Webhook }',
    'cgroupDriver: cgroupfs',
    'cgroupsPerQOS: true',
    `cgroupRoot: ${REAL_NODE.cgroupRoot}`,
    'enforceNodeAllocatable: [pods]',
    'failSwapOn: false',
    'failCgroupV1: false',
    `containerRuntimeEndpoint: unix://${p.containerdSocket}`,
    `podLogsDir: ${p.podLogs}`,
    `clusterDNS: [${REAL_NODE.address}]`,
    'clusterDomain: cluster.local',
    'resolvConf: /etc/resolv.conf',
    'evictionHard: { memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1% }',
    'imageGCHighThresholdPercent: 100',
    'imageGCLowThresholdPercent: 99',
    'serializeImagePulls: false',
    'maxPods: 30',
    'registerWithTaints:',
    `  - { key: ${REAL_NODE.taint.key}, value: ${REAL_NODE.taint.value}, effect: ${REAL_NODE.taint.effect} }`,
    'nodeStatusReportFrequency: 20s',
    'syncFrequency: 10s',
    'fileCheckFrequency: 20s',
    'staticPodPath: ""',
    'rotateCertificates: false',
    'serverTLSBootstrap: false',
  ];
  return `${lines.join('\n')}\n`;
}

export function kubeletArgs(kubeconfig: string): string[] {
  return [
    `--config=${nodePaths.kubeletConfig}`,
    `--kubeconfig=${kubeconfig}`,
    `--root-dir=${nodePaths.kubeletRoot}`,
    `--cert-dir=${nodePaths.kubeletCerts}`,
    `--hostname-override=${REAL_NODE.name}`,
    `--node-ip=${REAL_NODE.address}`,
    `--node-labels=${REAL_NODE.label.key}=${REAL_NODE.label.value},type=real`,
    '--v=1',
  ];
}

/** kube-proxy in nftables mode; conntrack's settings are left as the machine has them. */
export function kubeProxyArgs(kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    '--proxy-mode=nftables',
    `--hostname-override=${REAL_NODE.name}`,
    `--cluster-cidr=${REAL_NODE.podCidr}`,
    `--healthz-bind-address=127.0.0.1:${REAL_NODE.kubeProxyHealthzPort}`,
    `--metrics-bind-address=127.0.0.1:${REAL_NODE.kubeProxyMetricsPort}`,
    '--conntrack-max-per-core=0',
    '--conntrack-tcp-timeout-established=0s',
    '--conntrack-tcp-timeout-close-wait=0s',
    '--v=1',
  ];
}

/**
 * CoreDNS on the bridge address, the pods' cluster DNS: the cluster's
 * Services and pods from the API server, nothing forwarded (no resolver
 * outside the machine is asked).
 */
export function corefile(kubeconfig: string): string {
  return `.:53 {
    bind ${REAL_NODE.address}
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig ${kubeconfig}
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
}
`;
}
