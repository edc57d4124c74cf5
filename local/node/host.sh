#!/usr/bin/env bash
# What the real node needs of this machine, and its undoing:
#   host.sh up     the bridge cascade0 with the node's address, a route to the
#                  Service range through it, IPv4 forwarding on, the node's
#                  cgroup in each cgroup v1 controller, its directories
#   host.sh down   ends what runs in the node's cgroups and containerd's shims,
#                  unmounts everything under its directories, removes its
#                  network namespaces, nftables tables, bridge, route, cgroups
#                  and directories, what containerd and CNI leave outside
#                  them, and puts IPv4 forwarding back
# Both can run again: each step checks first. The names are fixed: one real
# node runs on a machine at a time (node.ts holds a lock for it).
set -uo pipefail

BRIDGE=cascade0
GATEWAY_CIDR=10.88.0.1/24
SERVICE_CIDR=10.96.0.0/16
CGROUP=cascade-node
ROOT=/var/lib/cascade-node
RUN=/run/cascade-node
FORWARD_SAVED=/run/cascade-node.ip_forward

controllers() { # every cgroup v1 hierarchy mounted under /sys/fs/cgroup
  awk '$3 == "cgroup" && $2 ~ "^/sys/fs/cgroup/" { print $2 }' /proc/mounts
}

up() {
  set -e
  mkdir -p "$ROOT" "$RUN"
  [ -f "$FORWARD_SAVED" ] || cat /proc/sys/net/ipv4/ip_forward >"$FORWARD_SAVED"
  echo 1 >/proc/sys/net/ipv4/ip_forward
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
  fi
  ip addr replace "$GATEWAY_CIDR" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  ip route replace "$SERVICE_CIDR" dev "$BRIDGE"
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
  for table in "ip kube-proxy" "ip6 kube-proxy" "inet cni_hostport" "ip cni_hostport"; do
    # shellcheck disable=SC2086
    nft list table $table >/dev/null 2>&1 && nft delete table $table
  done
  ip link show "$BRIDGE" >/dev/null 2>&1 && ip link delete "$BRIDGE"
  for dir in $(controllers); do
    [ -d "$dir/$CGROUP" ] && find "$dir/$CGROUP" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  rm -rf "$ROOT" "$RUN"
  # what containerd and CNI write whatever their settings: shim sockets, and
  # CNI's cache of results (of the network named cascade, node-config.ts)
  rm -f /var/lib/cni/results/cascade-*
  rmdir /var/lib/cni/results /var/lib/cni /run/containerd/s /run/containerd 2>/dev/null
  if [ -f "$FORWARD_SAVED" ]; then
    cat "$FORWARD_SAVED" >/proc/sys/net/ipv4/ip_forward
    rm -f "$FORWARD_SAVED"
  fi
  return 0
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
