# Sourced by first-start.sh and first-test.sh: a new machine, as near as this
# machine gets. Usage: empty_home_clone NAME [KEEP-DIR]. Makes KEEP-DIR (default
# a new /tmp/cascade-NAME-XXXXXX) the HOME of a fresh clone of this checkout's
# HEAD, with the machine's .npmrc and nothing else, and changes into the clone.
# Sets `home` and `commit`. A clone already there is kept, for a later run.
empty_home_clone() {
  local repo
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  home="${2:-$(mktemp -d "/tmp/cascade-$1-XXXXXX")}"
  mkdir -p "$home"
  if [ -f "$HOME/.npmrc" ] && [ ! -f "$home/.npmrc" ]; then cp "$HOME/.npmrc" "$home/.npmrc"; fi
  [ -d "$home/cascade" ] || git clone -q "$repo" "$home/cascade"
  commit="$(git -C "$home/cascade" rev-parse --short HEAD)"
  cd "$home/cascade"
}
