#!/usr/bin/env bash
# Builds local/knative-validate/main.go (Knative Serving's own validation of a
# Service, knative.dev/serving/pkg/apis/serving/v1) from the Go module proxy
# into the cache beside the local control plane's binaries, through the pinned
# wrapper module of local/knative-serving-module.sh, at $VERSION (v0.51.0), the
# version the Knative CRDs of the tests come from (test/support/knative-crds.ts).
# One build at a time per cache (flock); a second call finds the binary and
# returns at once. Prints the path of the binary on its last line.
set -euo pipefail

VERSION="${CASCADE_KNATIVE_VALIDATE_VERSION:-v0.51.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../knative-serving-module.sh
source "$HERE/../knative-serving-module.sh"
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"
# the source's hash names the binary: a change of main.go builds it again
HASH="$(sha256sum "$HERE/main.go" | cut -c1-12)"
BIN="$CACHE/bin/knative-validate-$VERSION-$HASH"
SRC="$CACHE/src/knative-validate-$VERSION"
LOG="$CACHE/logs/knative-validate-$VERSION.log"

if [ ! -x "$BIN/knative-validate" ]; then
  mkdir -p "$BIN" "$SRC" "$CACHE/logs"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/knative-validate.lock"
    flock 9
  fi
  if [ ! -x "$BIN/knative-validate" ]; then
    echo "knative-validate build: building Knative Serving $VERSION's validation from the Go module proxy (first time only, a few minutes)" >&2
    write_serving_go_mod cascade.local/knative-validate "$VERSION" "$SRC"
    cp "$HERE/main.go" "$SRC/main.go"
    if ! (cd "$SRC" && GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
      go build -trimpath -ldflags "-s -w" -o "$BIN/knative-validate.tmp" .) >"$LOG" 2>&1; then
      echo "knative-validate build: failed; last lines of $LOG:" >&2
      tail -n 30 "$LOG" >&2 || true
      rm -f "$BIN/knative-validate.tmp"
      exit 1
    fi
    mv "$BIN/knative-validate.tmp" "$BIN/knative-validate"
    echo "knative-validate build: built $BIN/knative-validate in ${SECONDS}s" >&2
  fi
fi
echo "$BIN/knative-validate"
