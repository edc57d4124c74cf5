#!/usr/bin/env bash
# Installs the Debian packages the real node needs, only those missing:
#   libseccomp-dev, pkg-config  runc's seccomp support (cgo), at build time
#   gcc, libc6-dev              runc's cgo and the static pause binary
#   busybox-static              the module image's only binary
#   nftables                    kube-proxy's and CNI portmap's backend, and teardown
# A second call finds them all and returns at once. Needs root (apt-get).
set -euo pipefail

PACKAGES=(libseccomp-dev pkg-config gcc libc6-dev busybox-static nftables)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

echo "real node: installing ${missing[*]} with apt-get" >&2
# one apt-get at a time on this machine (dpkg's own lock fails instead of waiting)
exec 8>/tmp/cascade-apt.lock
flock 8
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
