# Sourced by the build scripts of the tools the tests and `npm start` build from
# the Go module proxy (prometheus/, kube-state-metrics/, queue-proxy/,
# knative-validate/): what each does alike, so each script says only how its
# binary is built.
CACHE="${CASCADE_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cascade-cluster}"

# Usage: cached_build WHAT DESCRIPTION LOCK BINARY BUILD-FUNCTION.
# Prints BINARY's path on its last line, building it first when it is missing.
# One build runs at a time per LOCK ($CACHE/LOCK.lock, flock), and the binary is
# checked again once the lock is held, so a second caller finds it built.
# BUILD-FUNCTION runs in a subshell with errexit, its output in
# $CACHE/logs/<BINARY's directory>.log, given a scratch directory (inside
# BINARY's) where it leaves a file named as BINARY; that file becomes BINARY
# only when the function succeeded. On a failure the log's last lines go to
# stderr and the script exits 1.
cached_build() {
  local what="$1" description="$2" lock="$3" binary="$4" build="$5"
  local dir log scratch status
  dir="$(dirname "$binary")"
  log="$CACHE/logs/$(basename "$dir").log"
  if [ ! -x "$binary" ]; then
    mkdir -p "$dir" "$CACHE/logs"
    if command -v flock >/dev/null 2>&1; then
      exec 9>"$CACHE/$lock.lock"
      flock 9
    fi
    if [ ! -x "$binary" ]; then
      echo "$what build: building $description from the Go module proxy (first time only, several minutes)" >&2
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
      echo "$what build: built $binary in ${SECONDS}s" >&2
    fi
  fi
  echo "$binary"
}
