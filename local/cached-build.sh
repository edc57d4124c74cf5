# The one build helper of local/, sourced by every build script of the local
# cluster: the control plane, the real node, the registry, Prometheus,
# kube-state-metrics, Knative's parts and Traefik. It does what each does
# alike, so each script says only how its binaries are built.
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"
# The Go compiler collects garbage less often: 15 % less CPU time for a build
# with an empty cache (etcd, twice each: docs/local-stack.md).
export GOGC="${GOGC:-400}"
# The flags of every go build and go install. -ldflags -w drops the DWARF
# anyway, so the compiler writes none: 8 % less CPU time (etcd, as above).
GO_FLAGS=(-trimpath -gcflags=all=-dwarf=false)

# Usage: cached_build WHAT DESCRIPTION LOCK BINARY BUILD-FUNCTION [LOG].
# Prints BINARY's path on its last line, building it first when it is missing:
# cached_build_set for the one binary.
cached_build() {
  local binary="$4"
  cached_build_set "$1" "$2" "$3" "$(dirname "$binary")" "$5" "${6:-$(basename "$(dirname "$binary")")}" \
    "$(basename "$binary")"
  echo "$binary"
}

# Usage: cached_build_set WHAT DESCRIPTION LOCK DIR BUILD-FUNCTION LOG NAME...
# Builds DIR/NAME for every NAME with one call of BUILD-FUNCTION when any is
# missing, so one `go build` compiles what the binaries share once.
# One build runs at a time per LOCK ($CACHE/LOCK.lock, flock), and the binaries
# are checked again once the lock is held, so a second caller finds them built.
# BUILD-FUNCTION runs in a subshell with errexit, its output in
# $CACHE/logs/LOG.log. It is given a scratch directory inside DIR, where it
# leaves a file for each NAME; they move into DIR only when it succeeded. On a
# failure the log's last lines go to stderr and the script exits 1. The line
# that reports a build gives its time and the CPU time of its processes.
cached_build_set() {
  local what="$1" description="$2" lock="$3" dir="$4" build="$5" log="$CACHE/logs/$6.log"
  shift 6
  local name scratch status started cpu me=$BASHPID
  binaries_present "$dir" "$@" && return 0
  mkdir -p "$dir" "$CACHE/logs"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/$lock.lock"
    flock 9
  fi
  binaries_present "$dir" "$@" && return 0
  echo "$what build: building $description from the Go module proxy (first time only, several minutes)" >&2
  started=$SECONDS
  cpu=$(children_cpu_ticks "$me")
  scratch="$(mktemp -d "$dir/.tmp-XXXXXX")"
  # not in an `if`: errexit would be off in the function
  set +e
  (set -e; "$build" "$scratch") >"$log" 2>&1
  status=$?
  set -e
  if [ "$status" -eq 0 ] && ! binaries_present "$scratch" "$@"; then
    echo "the build left no $* in its scratch directory" >>"$log"
    status=1
  fi
  if [ "$status" -ne 0 ]; then
    echo "$what build: building $description failed; last lines of $log:" >&2
    tail -n 30 "$log" >&2 || true
    rm -rf "$scratch"
    exit 1
  fi
  for name in "$@"; do
    mkdir -p "$(dirname "$dir/$name")"
    mv "$scratch/$name" "$dir/$name"
  done
  rm -rf "$scratch"
  cpu=$((($(children_cpu_ticks "$me") - cpu) / $(getconf CLK_TCK)))
  echo "$what build: built $description in $dir in $((SECONDS - started))s, CPU ${cpu}s" >&2
}

# Usage: binaries_present DIR NAME... Succeeds when every DIR/NAME is executable.
binaries_present() {
  local dir="$1" name
  shift
  for name in "$@"; do
    [ -x "$dir/$name" ] || return 1
  done
}

# Usage: children_cpu_ticks PID. The user and system CPU ticks of the ended
# and waited-for children of the shell PID (fields 16 and 17 of /proc/PID/stat).
children_cpu_ticks() {
  local stat
  read -r -a stat <"/proc/$1/stat"
  echo $((stat[15] + stat[16]))
}

# The Kubernetes commands the local cluster runs: the control plane's, the
# real node's, and kubectl for the tests and `npm start`.
K8S_COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy)

# Usage: k8s_binaries. Needs K8S_VERSION. Prints the directory of every
# K8S_COMMANDS binary, built first when one is missing: one `go build` for all,
# so the packages they share compile once. The control plane's and the real
# node's build.sh both call it and copy what they run.
k8s_binaries() {
  local dir="$CACHE/bin/kubernetes-$K8S_VERSION"
  cached_build_set kubernetes "Kubernetes $K8S_VERSION's ${K8S_COMMANDS[*]}" kubernetes "$dir" \
    build_k8s "kubernetes-$K8S_VERSION" "${K8S_COMMANDS[@]}"
  echo "$dir"
}

# Usage: k8s_module DIR. Needs K8S_VERSION. Writes DIR/go.mod once, the module
# that builds Kubernetes' binaries from the Go module proxy: it requires
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

# Usage: build_k8s OUT-DIR. Needs K8S_VERSION. Builds every K8S_COMMANDS
# binary of k8s.io/kubernetes/cmd through k8s_module's module into OUT-DIR,
# static, with the version stamped as Kubernetes' own build stamps it.
build_k8s() {
  local dir="$CACHE/src/kubernetes-$K8S_VERSION" out="$1" minor ld pkg cmd
  local packages=()
  k8s_module "$dir"
  minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
  ld="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ld="$ld -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  for cmd in "${K8S_COMMANDS[@]}"; do packages+=("k8s.io/kubernetes/cmd/$cmd"); done
  (cd "$dir" && GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 \
    go build "${GO_FLAGS[@]}" -ldflags "$ld" -o "$out/" "${packages[@]}")
}
