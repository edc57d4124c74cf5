#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok) and kubectl of the same Kubernetes version from the Go
# module proxy into a cache outside the repository. A second call finds every
# binary and returns at once.
# Prints the directory holding the binaries on its last line.
set -euo pipefail

K8S_VERSION="${CASCADE_K8S_VERSION:-v1.34.4}"
ETCD_VERSION="${CASCADE_ETCD_VERSION:-v3.6.16}"
KWOK_VERSION="${CASCADE_KWOK_VERSION:-v0.8.0}"
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"
BIN="$CACHE/bin/k8s-$K8S_VERSION-etcd-$ETCD_VERSION-kwok-$KWOK_VERSION"
SRC="$CACHE/src"
# shellcheck source=k8s-module.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/k8s-module.sh"
LOGS="$CACHE/logs"
mkdir -p "$BIN" "$SRC" "$LOGS"

# one build at a time per cache (parallel test runs may all ask for one)
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE/build.lock"
  flock 9
fi

export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED=0

fail() { # component, log file
  echo "cluster build: building $1 failed; last lines of $2:" >&2
  tail -n 30 "$2" >&2 || true
  exit 1
}

build_etcd() {
  local dir="$SRC/etcd-$ETCD_VERSION" log="$LOGS/etcd.log"
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
  (cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" . && mv "$BIN/etcd.tmp" "$BIN/etcd") >"$log" 2>&1 || fail etcd "$log"
}

build_k8s() { # component
  local dir="$SRC/kubernetes-$K8S_VERSION" log="$LOGS/$1.log" minor ld
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  ld="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ld="$ld -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$dir" && go build -trimpath -ldflags "$ld" -o "$BIN/$1.tmp" "k8s.io/kubernetes/cmd/$1" && mv "$BIN/$1.tmp" "$BIN/$1") >"$log" 2>&1 || fail "$1" "$log"
}

build_kwok() {
  local log="$LOGS/kwok.log"
  (GOBIN="$BIN" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION") >"$log" 2>&1 || fail kwok "$log"
}

want() { [ -x "$BIN/$1" ] && return 1; echo "cluster build: building $1 (first time only, several minutes)" >&2; }

want etcd && build_etcd
k8s_module "$SRC/kubernetes-$K8S_VERSION"
for c in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  want "$c" && build_k8s "$c"
done
want kwok && build_kwok
echo "$BIN"
