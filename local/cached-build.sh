# The one build helper of local/, sourced by every build script of the local
# cluster: the control plane, the real node, the registry, Prometheus,
# kube-state-metrics, Knative's parts and Traefik. It does what each does
# alike, so each script says only how its binaries are built.
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"

# Usage: cached_build WHAT DESCRIPTION LOCK BINARY BUILD-FUNCTION [LOG].
# Prints BINARY's path on its last line, building it first when it is missing.
# One build runs at a time per LOCK ($CACHE/LOCK.lock, flock), and the binary is
# checked again once the lock is held, so a second caller finds it built.
# BUILD-FUNCTION runs in a subshell with errexit, its output in
# $CACHE/logs/LOG.log; LOG defaults to the name of BINARY's directory. It is
# given a scratch directory inside BINARY's, where it leaves a file named as
# BINARY; that file becomes BINARY only when the function succeeded. On a failure the
# log's last lines go to stderr and the script exits 1.
cached_build() {
  local what="$1" description="$2" lock="$3" binary="$4" build="$5"
  local dir log scratch status started
  dir="$(dirname "$binary")"
  log="$CACHE/logs/${6:-$(basename "$dir")}.log"
  if [ ! -x "$binary" ]; then
    mkdir -p "$dir" "$CACHE/logs"
    if command -v flock >/dev/null 2>&1; then
      exec 9>"$CACHE/$lock.lock"
      flock 9
    fi
    if [ ! -x "$binary" ]; then
      echo "$what build: building $description from the Go module proxy (first time only, several minutes)" >&2
      started=$SECONDS
      scratch="$(mktemp -d "$dir/.tmp-XXXXXX")"
      # not in an `if`: errexit would be off in the function
      set +e
      (set -e; "$build" "$scratch") >"$log" 2>&1
      status=$?
      set -e
      if [ "$status" -ne 0 ] || [ ! -f "$scratch/$(basename "$binary")" ]; then
        echo "$what build: building $description failed; last lines of $log:" >&2
        tail -n 30 "$log" >&2 || true
        rm -rf "$scratch"
        exit 1
      fi
      mv "$scratch/$(basename "$binary")" "$binary"
      rm -rf "$scratch"
      echo "$what build: built $binary in $((SECONDS - started))s" >&2
    fi
  fi
  echo "$binary"
}

# Usage: k8s_module DIR. Needs K8S_VERSION. Writes DIR/go.mod once, the module
# that builds Kubernetes' binaries from the Go module proxy: it requires
# k8s.io/kubernetes and points every k8s.io staging module at its published
# release. The control plane and the real node each have a DIR of their own.
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

# Usage: build_k8s MODULE-DIR COMMAND OUT-DIR. Needs K8S_VERSION. Builds
# k8s.io/kubernetes/cmd/COMMAND through k8s_module's MODULE-DIR into
# OUT-DIR/COMMAND, static, with the version stamped as Kubernetes' own build
# stamps it.
build_k8s() {
  local dir="$1" cmd="$2" out="$3" minor ld pkg
  k8s_module "$dir"
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  ld="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ld="$ld -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "$ld" -o "$out/$cmd" "k8s.io/kubernetes/cmd/$cmd")
}
