#!/usr/bin/env bash
# Builds Traefik (github.com/traefik/traefik/v3, cmd/traefik), the Knative
# networking layer of the local cluster, from the Go module proxy into the cache
# beside the local control plane's binaries. It builds inside the module's own
# copy, so from its own go.mod, go.sum and replace lines, less what PATCH
# leaves out.
# One build at a time per cache (flock); a second call finds the binary.
# Prints the path of the traefik binary on its last line.
set -euo pipefail

VERSION="${CASCADE_TRAEFIK_VERSION:-v3.6.5}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../../cached-build.sh
source "$HERE/../../cached-build.sh"
SRC="$CACHE/src/traefik-$VERSION"

# What the local cluster leaves out of Traefik, as a patch of its source.
# First, lego's DNS providers: only the ACME DNS challenge calls them, and the
# cluster asks for no certificate. Then the providers of Docker, Swarm, ECS,
# Consul, Nomad, etcd, ZooKeeper and Redis. Together they are half of the
# source Traefik compiles. The build stops if the patch does not apply.
PATCH="$HERE/traefik-$VERSION.patch"

build() {
  local dir
  dir="$(cd "$CACHE" && GOFLAGS=-mod=mod go mod download -json "github.com/traefik/traefik/v3@$VERSION" |
    sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  rm -rf "$SRC"
  mkdir -p "$(dirname "$SRC")"
  cp -r "$dir" "$SRC"
  chmod -R u+w "$SRC"
  cd "$SRC"
  # git applies it here, not in a repository the cache may sit in
  GIT_CEILING_DIRECTORIES="$(dirname "$SRC")" git apply "$PATCH"
  GOFLAGS="-buildvcs=false" CGO_ENABLED=0 \
    nice go build "${GO_FLAGS[@]}" -ldflags "-s -w" -o "$1/traefik" ./cmd/traefik
}

cached_build traefik "Traefik $VERSION" traefik "$CACHE/bin/traefik-$VERSION-local/traefik" build
