#!/usr/bin/env bash
# Builds Knative Eventing's binaries from the Go module proxy into the cache
# beside the local control plane's. The module knative.dev/eventing is taken at
# an exact version and built in a copy of its own directory, with its own
# go.mod: every dependency is the one Eventing pins. One `go build` makes
# every command, so the packages they share compile once. One build at a time
# per cache (flock); a later call finds the binaries and returns at once.
# Prints the directory holding one binary per command on its last line.
set -euo pipefail

VERSION="${CASCADE_KNATIVE_EVENTING_VERSION:-v0.50.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../cached-build.sh
source "$HERE/../../cached-build.sh"
SRC="$CACHE/src/knative-eventing-$VERSION"
BIN="$CACHE/bin/knative-eventing-$VERSION"

# The commands to build. The YAMLs of config/core, config/brokers/mt-channel-broker
# and config/channels/in-memory-channel name their images as
# ko://knative.dev/eventing/cmd/<cmd>. Of those, the ones whose pods run here are
# built. So is event_display, the image of Cascade's dead-letter sink. mtping and
# auth_proxy are left out, since no pod of theirs runs here; components.ts says
# why. EVENTING_COMMANDS of components.ts lists the same, and a unit test holds
# the two lists equal.
CMDS=(
  controller
  webhook
  mtchannel_broker
  in_memory/channel_controller
  in_memory/channel_dispatcher
  broker/ingress
  broker/filter
  apiserver_receive_adapter
  jobsink
  requestreply
  event_display
)

# The module's directory, copied writable once: the module cache's copy is read-only.
source_dir() {
  if [ ! -f "$SRC/go.mod" ]; then
    local dir
    dir="$(go mod download -json "knative.dev/eventing@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
    [ -n "$dir" ]
    rm -rf "$SRC.tmp"
    mkdir -p "$(dirname "$SRC")"
    cp -r "$dir" "$SRC.tmp"
    chmod -R u+w "$SRC.tmp"
    mv "$SRC.tmp" "$SRC"
  fi
}

# Binary names: the command's path with / made -, e.g. broker-ingress.
binary_name() { echo "${1//\//-}"; }

build() { # scratch
  local packages=() cmd
  source_dir
  cd "$SRC"
  for cmd in "${CMDS[@]}"; do packages+=("./cmd/$cmd"); done
  GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    nice go build "${GO_FLAGS[@]}" -ldflags "-s -w" -o "$1/" "${packages[@]}"
  # go build names each binary by the last element of its path
  for cmd in "${CMDS[@]}"; do
    [ "$(basename "$cmd")" = "$(binary_name "$cmd")" ] || mv "$1/$(basename "$cmd")" "$1/$(binary_name "$cmd")"
  done
}

NAMES=()
for cmd in "${CMDS[@]}"; do NAMES+=("$(binary_name "$cmd")"); done
cached_build_set knative-eventing "Knative Eventing $VERSION's ${CMDS[*]}" knative-eventing "$BIN" build \
  "knative-eventing-$VERSION" "${NAMES[@]}"
source_dir
echo "$BIN"
