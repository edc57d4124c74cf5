#!/usr/bin/env bash
# Builds kube-state-metrics (for the monitoring test: its CustomResourceState
# metrics of the CascadeRuns) from the Go module proxy into the cache beside
# the local control plane's binaries. Version pinned; one build at a time per
# cache (flock); a second call finds the binary and returns at once.
# Prints the path of the binary on its last line.
#
# Not `go install k8s.io/kube-state-metrics/v2@version`: that also reads the
# module's version list for deprecation notices, and the proxy here refuses
# that list (403 "This module version is not available") while it serves
# the version itself. So a throwaway wrapper module requires the pinned
# version, with kube-state-metrics' own requirements, and builds its main
# package.
set -euo pipefail

VERSION="${CASCADE_KSM_VERSION:-v2.15.0}"
MODULE="k8s.io/kube-state-metrics/v2"
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"
BIN="$CACHE/bin/kube-state-metrics-$VERSION"
LOG="$CACHE/logs/kube-state-metrics-$VERSION.log"

if [ ! -x "$BIN/kube-state-metrics" ]; then
  mkdir -p "$BIN" "$CACHE/logs"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/kube-state-metrics.lock"
    flock 9
  fi
  if [ ! -x "$BIN/kube-state-metrics" ]; then
    echo "kube-state-metrics build: building $MODULE $VERSION from the Go module proxy (first time only, several minutes)" >&2
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    if ! (
      cd "$work"
      gomod="$(GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
      [ -n "$gomod" ] || { echo "go mod download $MODULE@$VERSION found no go.mod"; exit 1; }
      {
        printf 'module cascade.local/kube-state-metrics-build\n\n'
        grep '^go ' "$gomod"
        printf '\nrequire %s %s\n\n' "$MODULE" "$VERSION"
        sed -n '/^require/,$p' "$gomod" | grep -v '^toolchain\|^replace'
      } > go.mod
      GOFLAGS="-buildvcs=false -mod=mod" CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/kube-state-metrics" "$MODULE"
      mv "$work/kube-state-metrics" "$BIN/kube-state-metrics"
    ) >"$LOG" 2>&1; then
      echo "kube-state-metrics build: failed; last lines of $LOG:" >&2
      tail -n 30 "$LOG" >&2 || true
      exit 1
    fi
    echo "kube-state-metrics build: built $BIN/kube-state-metrics in ${SECONDS}s" >&2
  fi
fi
echo "$BIN/kube-state-metrics"
