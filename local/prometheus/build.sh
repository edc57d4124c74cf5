#!/usr/bin/env bash
# Builds one command of the Prometheus module from the Go module proxy into the
# cache beside the local control plane's binaries:
#   build.sh promtool     Prometheus's checker (`promtool check metrics`)
#   build.sh prometheus   the server (the monitoring test scrapes the function)
# Version pinned, the same for both; one build at a time per cache (flock); a
# second call finds the binary and returns at once.
# Prints the path of the binary on its last line.
set -euo pipefail

COMMAND="${1:-promtool}"
case "$COMMAND" in
  promtool|prometheus) ;;
  *) echo "usage: $0 promtool|prometheus" >&2; exit 2 ;;
esac

# Prometheus v3.x is published to the Go module proxy as v0.3xx.y (v0.316.0 = 3.16.0).
VERSION="${CASCADE_PROMETHEUS_VERSION:-${CASCADE_PROMTOOL_VERSION:-v0.316.0}}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../cached-build.sh
source "$HERE/../cached-build.sh"

# remove_all_sd: Prometheus's own build tag leaving out every service
# discovery but static, file and HTTP; neither `check metrics` nor the
# test's static targets use them (a much smaller build). Without the
# builtinassets tag the server leaves out its web UI (the test only uses the
# HTTP API).
build() {
  GOFLAGS="-buildvcs=false" CGO_ENABLED=0 GOBIN="$1" go install "${GO_FLAGS[@]}" -tags remove_all_sd \
    -ldflags "-s -w -X github.com/prometheus/common/version.Version=$VERSION" \
    "github.com/prometheus/prometheus/cmd/$COMMAND@$VERSION"
}

# one lock for both commands: they share the module and most packages
cached_build "$COMMAND" "$COMMAND $VERSION" prometheus "$CACHE/bin/$COMMAND-$VERSION/$COMMAND" build
