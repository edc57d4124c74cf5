#!/usr/bin/env bash
# What the real node needs of this machine, and its undoing:
#   host.sh up     the node's network namespace cascade-node, and in it
#                  loopback, the bridge cascade0 with the node's address, a
#                  route to the Service range through it and IPv4 forwarding;
#                  the node's cgroup in each cgroup v1 controller, its
#                  directories. The machine's own namespace gets no address,
#                  route or bridge: the host reaches the node through door.ts.
#   host.sh down   ends what runs in the node's cgroups and containerd's shims,
#                  unmounts everything under its directories, removes its
#                  network namespaces (the bridge, routes and nftables tables
#                  go with them), cgroups and directories, and what containerd
#                  and CNI leave outside them
# Both can run again: each step checks first. The names are fixed: one real
# node runs on a machine at a time (node.ts holds a lock for it).
set -uo pipefail

BRIDGE=cascade0
GATEWAY_CIDR=10.88.0.1/24
SERVICE_CIDR=10.96.0.0/16
CGROUP=cascade-node
ROOT=/var/lib/cascade-node
RUN=/run/cascade-node
NETNS=cascade-node

controllers() { # every cgroup v1 hierarchy mounted under /sys/fs/cgroup
  awk '$3 == "cgroup" && $2 ~ "^/sys/fs/cgroup/" { print $2 }' /proc/mounts
}

in_netns() { nsenter --net="/run/netns/$NETNS" -- "$@"; }

up() {
  set -e
  mkdir -p "$ROOT" "$RUN"
  [ -e "/run/netns/$NETNS" ] || ip netns add "$NETNS"
  in_netns ip link set lo up
  # /proc/sys/net is the namespace of the process that writes it
  in_netns sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward'
  if ! in_netns ip link show "$BRIDGE" >/dev/null 2>&1; then
    in_netns ip link add "$BRIDGE" type bridge
  fi
  in_netns ip addr replace "$GATEWAY_CIDR" dev "$BRIDGE"
  in_netns ip link set "$BRIDGE" up
  in_netns ip route replace "$SERVICE_CIDR" dev "$BRIDGE"
  for dir in $(controllers); do
    mkdir -p "$dir/$CGROUP"
    # a new cpuset cgroup starts with no CPUs and no memory nodes
    if [ -f "$dir/cpuset.cpus" ]; then
      cat "$dir/cpuset.cpus" >"$dir/$CGROUP/cpuset.cpus"
      cat "$dir/cpuset.mems" >"$dir/$CGROUP/cpuset.mems"
    fi
  done
}

# the pids in the node's cgroups (containers and sandboxes)
cgroup_pids() {
  for dir in $(controllers); do
    [ -d "$dir/$CGROUP" ] && find "$dir/$CGROUP" -name cgroup.procs -exec cat {} + 2>/dev/null
  done | sort -un
}

# containerd's shims of this node: their command line names its socket
shim_pids() {
  local pid
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -q -- "-address $RUN/containerd.sock" && echo "$pid"
  done
}

down() {
  local pid mnt dir i
  for i in 1 2 3; do
    for pid in $(cgroup_pids) $(shim_pids); do kill -KILL "$pid" 2>/dev/null; done
    [ -z "$(cgroup_pids)$(shim_pids)" ] && break
    sleep 0.5
  done
  # deepest first; lazily, since a container's process may still be exiting
  for mnt in $(awk '{ print $5 }' /proc/self/mountinfo | grep -E "^($ROOT|$RUN)(/|$)" | sort -r); do
    umount -l "$mnt" 2>/dev/null
  done
  [ -e "/run/netns/$NETNS" ] && ip netns delete "$NETNS"
  for dir in $(controllers); do
    [ -d "$dir/$CGROUP" ] && find "$dir/$CGROUP" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  rm -rf "$ROOT" "$RUN"
  # what containerd and CNI write whatever their settings: shim sockets, and
  # CNI's cache of results (of the network named cascade, node-config.ts)
  rm -f /var/lib/cni/results/cascade-*
  rmdir /var/lib/cni/results /var/lib/cni /run/containerd/s /run/containerd 2>/dev/null
  return 0
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
