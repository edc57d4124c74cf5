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
#   coredns                          github.com/coredns/coredns, the cluster DNS,
#                                    with the plugins of the node's Corefile
# The Debian packages it needs come from apt-deps.sh. It builds with the build
# helper of ../cached-build.sh: one build at a time per cache (flock), and a
# second call finds every binary and returns at once.
# Prints the directory holding the binaries on its last line.
set -euo pipefail

K8S_VERSION="${CASCADE_K8S_VERSION:-v1.34.4}"
CONTAINERD_VERSION="${CASCADE_CONTAINERD_VERSION:-v2.2.1}"
RUNC_VERSION="${CASCADE_RUNC_VERSION:-v1.4.0}"
CNI_VERSION="${CASCADE_CNI_VERSION:-v1.9.0}"
COREDNS_VERSION="${CASCADE_COREDNS_VERSION:-v1.13.1}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cached-build.sh
source "$HERE/../cached-build.sh"
# The plugins of the node's Corefile (corefile() in node-config.ts). CoreDNS's
# own main imports every plugin, cloud providers' SDKs among them: a third of
# what it compiles.
COREDNS_PLUGINS=(bind errors cache kubernetes)
BIN="$CACHE/bin/node-k8s-$K8S_VERSION-containerd-$CONTAINERD_VERSION-runc-$RUNC_VERSION-cni-$CNI_VERSION-coredns-$COREDNS_VERSION-$(IFS=-; echo "${COREDNS_PLUGINS[*]}")"
SRC="$CACHE/src"

"$HERE/apt-deps.sh"

export GOFLAGS="-mod=mod -buildvcs=false"

# Usage: step NAME FUNCTION ARG...: $BIN/NAME, built by FUNCTION SCRATCH ARG...
# unless it is there, under the lock node-build.lock, its output in
# $CACHE/logs/node-NAME.log.
step() {
  local name="$1"
  STEP_BUILD="$2"
  STEP_ARGS=("${@:3}")
  cached_build node "$name" node-build "$BIN/$name" step_build "node-${name//\//-}" >/dev/null
}
step_build() { "$STEP_BUILD" "$1" "${STEP_ARGS[@]}"; }

build_runc() { # scratch
  CGO_ENABLED=1 GOBIN="$1" go install "${GO_FLAGS[@]}" -tags seccomp \
    -ldflags "-s -w -X main.version=${RUNC_VERSION#v}" "github.com/opencontainers/runc@$RUNC_VERSION"
}

build_containerd() { # scratch, command
  CGO_ENABLED=0 GOBIN="$1" go install "${GO_FLAGS[@]}" -tags no_btrfs \
    -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/$2@$CONTAINERD_VERSION"
}

build_cni() { # scratch, plugin's package under plugins/
  CGO_ENABLED=0 GOBIN="$1" go install "${GO_FLAGS[@]}" -ldflags "-s -w" \
    "github.com/containernetworking/plugins/plugins/$2@$CNI_VERSION"
}

# CoreDNS with the plugins of the node's Corefile and no other: a main that
# imports them and lists them in CoreDNS's order.
build_coredns() { # scratch
  local plugin
  cd "$1"
  {
    printf '// Command coredns is CoreDNS with the plugins %s only.\npackage main\n\nimport (\n' "${COREDNS_PLUGINS[*]}"
    printf '\t"github.com/coredns/coredns/core/dnsserver"\n\t"github.com/coredns/coredns/coremain"\n'
    for plugin in "${COREDNS_PLUGINS[@]}"; do printf '\t_ "github.com/coredns/coredns/plugin/%s"\n' "$plugin"; done
    printf ')\n\nfunc main() {\n\tdnsserver.Directives = []string{'
    printf '"%s", ' "${COREDNS_PLUGINS[@]}"
    printf '}\n\tcoremain.Run()\n}\n'
  } >main.go
  printf 'module cascade.local/coredns\n\ngo 1.24\n\nrequire github.com/coredns/coredns %s\n' "$COREDNS_VERSION" >go.mod
  CGO_ENABLED=0 go build "${GO_FLAGS[@]}" -ldflags "-s -w" -o "$1/coredns" .
}

build_pause() { # scratch
  local src
  src="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
  gcc -Os -Wall -Werror -static -DVERSION="$K8S_VERSION" -o "$1/pause" "$src/build/pause/linux/pause.c"
  strip "$1/pause"
}

step pause build_pause
step runc build_runc
for c in containerd ctr containerd-shim-runc-v2; do step "$c" build_containerd "$c"; done
step cni/bridge build_cni main/bridge
step cni/host-local build_cni ipam/host-local
step cni/loopback build_cni main/loopback
step cni/portmap build_cni meta/portmap
step coredns build_coredns
K8S_BIN="$(k8s_binaries)"
for cmd in kubelet kube-proxy; do
  [ -x "$BIN/$cmd" ] || cp "$K8S_BIN/$cmd" "$BIN/$cmd"
done
echo "$BIN"
