# Sourced by local/cluster/build.sh and local/node/build.sh: the module that
# builds Kubernetes' binaries from the Go module proxy, each in a directory of
# its own (one per build lock).
# Usage: k8s_module DIR. Needs K8S_VERSION. Writes DIR/go.mod once: it requires
# k8s.io/kubernetes and points every k8s.io staging module at its published
# release.
k8s_module() {
  local dir="$1" staging modfile
  mkdir -p "$dir"
  [ -f "$dir/go.mod" ] && return 0
  modfile=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  staging="v0.${K8S_VERSION#v1.}"
  {
    printf 'module cascade.local/kubernetes\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n\n' "$K8S_VERSION"
    grep -E '^\s+k8s\.io/[a-z0-9-]+ => \./staging/' "$modfile" |
      awk -v v="$staging" '{ printf "replace %s => %s %s\n", $1, $1, v }'
  } >"$dir/go.mod.tmp"
  mv "$dir/go.mod.tmp" "$dir/go.mod"
}
