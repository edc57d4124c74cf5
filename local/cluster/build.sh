#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok) and kubectl of the same Kubernetes version from the Go
# module proxy into a cache outside the repository, with the build helper of
# ../cached-build.sh. A second call finds every binary and returns at once.
# Prints the directory holding the binaries on its last line.
set -euo pipefail

K8S_VERSION="${CASCADE_K8S_VERSION:-v1.34.4}"
ETCD_VERSION="${CASCADE_ETCD_VERSION:-v3.6.16}"
KWOK_VERSION="${CASCADE_KWOK_VERSION:-v0.8.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cached-build.sh
source "$HERE/../cached-build.sh"
BIN="$CACHE/bin/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
SRC="$CACHE/src"

export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0

build_etcd() { # scratch
  local dir="$SRC/etcd-$ETCD_VERSION"
  mkdir -p "$dir"
  cat >"$dir/go.mod" <<MOD
module cascade.local/etcd

go 1.24

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
MOD
  cat >"$dir/main.go" <<'GO'
// Command etcd runs the etcd server from go.etcd.io/etcd/server/v3.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  cd "$dir"
  go build "${GO_FLAGS[@]}" -ldflags "-s -w" -o "$1/etcd" .
}

build_kwok() { # scratch
  GOBIN="$1" go install "${GO_FLAGS[@]}" -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
}

# Kubernetes' binaries come from k8s_binaries (its own lock, shared with the
# real node). etcd and kwok need nothing of it, so they build beside it, one
# after the other under build.lock, each logged to logs/<binary>.log.
(
  cached_build cluster "etcd $ETCD_VERSION" build "$BIN/etcd" build_etcd etcd >/dev/null
  cached_build cluster "kwok $KWOK_VERSION" build "$BIN/kwok" build_kwok kwok >/dev/null
) &
beside=$!
K8S_BIN="$(k8s_binaries)"
for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  [ -x "$BIN/$cmd" ] || { mkdir -p "$BIN" && cp "$K8S_BIN/$cmd" "$BIN/$cmd"; }
done
wait "$beside"
echo "$BIN"
