#!/usr/bin/env bash
# Builds the real node's binaries from the Go module proxy (and pause.c of
# k8s.io/kubernetes with gcc) into a cache beside the control plane's:
#   kubelet, kube-proxy              k8s.io/kubernetes, the control plane's version
#   containerd, ctr,
#   containerd-shim-runc-v2          github.com/containerd/containerd/v2
#   runc                             github.com/opencontainers/runc, with seccomp (cgo)
#   cni/bridge, cni/host-local,
#   cni/loopback, cni/portmap        github.com/containernetworking/plugins
#   pause                            the sandbox's process, static
#   coredns                          github.com/coredns/coredns, the cluster DNS
# The Debian packages it needs come from apt-deps.sh. One build at a time per
# cache (flock); a second call finds every binary and returns at once.
# Prints the directory holding the binaries on its last line.
set -euo pipefail

K8S_VERSION="${CASCADE_K8S_VERSION:-v1.34.4}"
CONTAINERD_VERSION="${CASCADE_CONTAINERD_VERSION:-v2.2.1}"
RUNC_VERSION="${CASCADE_RUNC_VERSION:-v1.4.0}"
CNI_VERSION="${CASCADE_CNI_VERSION:-v1.9.0}"
COREDNS_VERSION="${CASCADE_COREDNS_VERSION:-v1.13.1}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"
BIN="$CACHE/bin/node-k8s-$K8S_VERSION-containerd-$CONTAINERD_VERSION-runc-$RUNC_VERSION-cni-$CNI_VERSION-coredns-$COREDNS_VERSION"
SRC="$CACHE/src"
LOGS="$CACHE/logs"
mkdir -p "$BIN/cni" "$SRC" "$LOGS"

"$HERE/apt-deps.sh"
# shellcheck source=../cluster/k8s-module.sh
source "$HERE/../cluster/k8s-module.sh"

if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE/node-build.lock"
  flock 9
fi

export GOFLAGS="-mod=mod -buildvcs=false"

fail() { # component, log file
  echo "node build: building $1 failed; last lines of $2:" >&2
  tail -n 30 "$2" >&2 || true
  exit 1
}

# Usage: step NAME COMMAND...: runs COMMAND (output in $LOGS/node-NAME.log)
# unless $BIN/NAME is there, and says how long it took.
step() {
  local name="$1" log="$LOGS/node-${1//\//-}.log" start=$SECONDS
  shift
  [ -x "$BIN/$name" ] && return 0
  echo "node build: building $name (first time only)" >&2
  "$@" >"$log" 2>&1 || fail "$name" "$log"
  [ -x "$BIN/$name" ] || fail "$name" "$log"
  echo "node build: built $name in $((SECONDS - start))s" >&2
}

# Usage: go_install DIR TAGS LDFLAGS PACKAGE@VERSION: installs into DIR by way of
# a scratch directory, so a half-written binary never has the final name.
go_install() {
  local dir="$1" tags="$2" ld="$3" pkg="$4" tmp
  tmp="$(mktemp -d "$BIN/.tmp-XXXXXX")"
  GOBIN="$tmp" go install -trimpath -tags "$tags" -ldflags "$ld" "$pkg" || { rm -rf "$tmp"; return 1; }
  mv "$tmp"/* "$dir/"
  rm -rf "$tmp"
}

build_runc() {
  CGO_ENABLED=1 go_install "$BIN" seccomp \
    "-s -w -X main.version=${RUNC_VERSION#v}" "github.com/opencontainers/runc@$RUNC_VERSION"
}

build_containerd() { # command
  CGO_ENABLED=0 go_install "$BIN" no_btrfs \
    "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/$1@$CONTAINERD_VERSION"
}

build_cni() { # plugin's package under plugins/
  CGO_ENABLED=0 go_install "$BIN/cni" "" "-s -w" \
    "github.com/containernetworking/plugins/plugins/$1@$CNI_VERSION"
}

build_k8s() { # command
  local dir="$SRC/kubernetes-$K8S_VERSION-node" minor ld
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  ld="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ld="$ld -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ld" -o "$BIN/$1.tmp" "k8s.io/kubernetes/cmd/$1" && mv "$BIN/$1.tmp" "$BIN/$1")
}

build_coredns() {
  CGO_ENABLED=0 go_install "$BIN" "" "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
}

build_pause() {
  local src
  src="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
  gcc -Os -Wall -Werror -static -DVERSION="$K8S_VERSION" -o "$BIN/pause.tmp" "$src/build/pause/linux/pause.c"
  strip "$BIN/pause.tmp"
  mv "$BIN/pause.tmp" "$BIN/pause"
}

step pause build_pause
step runc build_runc
for c in containerd ctr containerd-shim-runc-v2; do step "$c" build_containerd "$c"; done
step cni/bridge build_cni main/bridge
step cni/host-local build_cni ipam/host-local
step cni/loopback build_cni main/loopback
step cni/portmap build_cni meta/portmap
k8s_module "$SRC/kubernetes-$K8S_VERSION-node"
step kube-proxy build_k8s kube-proxy
step kubelet build_k8s kubelet
step coredns build_coredns
echo "$BIN"
