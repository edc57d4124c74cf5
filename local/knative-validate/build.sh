#!/usr/bin/env bash
# Builds local/knative-validate/main.go (Knative Serving's own validation of a
# Service, knative.dev/serving/pkg/apis/serving/v1) from the Go module proxy
# into the cache beside the local control plane's binaries, through a wrapper
# module that pins what the module proxy can serve:
#   - knative.dev/serving at $VERSION (v0.51.0), the version the Knative CRDs
#     of the tests come from (test/support/knative-crds.ts);
#   - knative.dev/pkg and knative.dev/networking at the July 2026
#     pseudo-versions that serving v0.50.0 uses: the module proxy refuses the
#     October 2026 ones that v0.51.0 pins (the same pins as queue-proxy's build);
#   - go.opentelemetry.io/otel/sdk at v1.44.0, to go with that pkg.
# One build at a time per cache (flock); a second call finds the binary and
# returns at once. Prints the path of the binary on its last line.
set -euo pipefail

VERSION="${CASCADE_KNATIVE_VALIDATE_VERSION:-v0.51.0}"
PKG_VERSION="v0.0.0-20260727151759-521cb33b33dd"
NETWORKING_VERSION="v0.0.0-20260727162500-c7a7b772cac9"
OTEL_SDK_VERSION="v1.44.0"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
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
    cat >"$SRC/go.mod" <<MOD
module cascade.local/knative-validate

go 1.26

require knative.dev/serving $VERSION

replace (
	knative.dev/pkg => knative.dev/pkg $PKG_VERSION
	knative.dev/networking => knative.dev/networking $NETWORKING_VERSION
	go.opentelemetry.io/otel/sdk => go.opentelemetry.io/otel/sdk $OTEL_SDK_VERSION
)
MOD
    cp "$HERE/main.go" "$SRC/main.go"
    rm -f "$SRC/go.sum"
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
