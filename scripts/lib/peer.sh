# Shared by scripts/peer-*: checks of a peer binary the user built beforehand.
# Each refusal is one line on stderr naming the path, and exit status 2.

# peer_binary SCRIPT OPTION PATH: PATH must be an executable file.
peer_binary() {
  local script=$1 option=$2 path=$3
  if [ -z "$path" ]; then
    echo "$script: $option BIN is required (see $script --help)" >&2
    exit 2
  fi
  if [ ! -e "$path" ]; then
    echo "$script: $option $path: no such file" >&2
    exit 2
  fi
  if [ ! -f "$path" ] || [ ! -x "$path" ]; then
    echo "$script: $option $path: not an executable file" >&2
    exit 2
  fi
}

# peer_output SECONDS PATH ARGS...: what PATH ARGS prints on stdout and stderr together, within
# SECONDS and with empty stdin, whatever its exit status.
peer_output() {
  local seconds=$1
  shift
  timeout "$seconds" "$@" </dev/null 2>&1 | head -c 4096 || true
}

# peer_refuse SCRIPT OPTION PATH WHAT: refuses PATH as not being WHAT.
peer_refuse() {
  echo "$1: $2 $3: not $4" >&2
  exit 2
}
