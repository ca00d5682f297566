#!/usr/bin/env bash
# Builds the Oxia standalone launcher (see README.md) into a cache directory
# and prints the binary's path as the LAST line of stdout. Build output goes
# to stderr. A cached binary is reused, so calling this from every test run
# is cheap (a hash and a stat).
#
#   OXIA_CACHE_DIR   cache root (default: $HOME/.cache/lakestream/oxia-server);
#                    the binary is OXIA_CACHE_DIR/<hash>/oxia-server, where
#                    <hash> covers go.mod, go.sum, main.go and the Go version.
#   OXIA_FORCE_BUILD=1  rebuild even if the cached binary exists.
#
# Needs only Go (>= 1.25) and the Go module proxy: go.sum is committed and the
# build runs with -mod=readonly, so it never edits the tree.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: 'go' not found on PATH; Go >= 1.25 is needed to build oxia-server" >&2
  exit 1
fi

go_version="$(go env GOVERSION) $(go env GOOS)/$(go env GOARCH)"
hash="$(cd "$here" && { cat go.mod go.sum main.go; echo "$go_version"; } | sha256sum | cut -c1-16)"
cache_root="${OXIA_CACHE_DIR:-${HOME:-/tmp}/.cache/lakestream/oxia-server}"
out_dir="$cache_root/$hash"
out="$out_dir/oxia-server"

if [[ -x "$out" && "${OXIA_FORCE_BUILD:-0}" != "1" ]]; then
  echo "$out"
  exit 0
fi

mkdir -p "$out_dir"
# Build to a unique temp name and rename: concurrent builds (parallel test
# forks) each produce a complete binary and the rename is atomic.
tmp="$(mktemp "$out_dir/oxia-server.tmp.XXXXXX")"
trap 'rm -f "$tmp"' EXIT

echo "build.sh: building oxia-server ($go_version) -> $out" >&2
start=$SECONDS
(
  cd "$here"
  # GOWORK=off: ignore any go.work above us. GOFLAGS is replaced, not
  # appended to, so a developer's -mod=vendor etc. cannot leak in.
  # CGO_ENABLED=0: pebble falls back to pure-Go zstd; no C compiler needed,
  # and the binary is static.
  GOWORK=off GOFLAGS="-mod=readonly" CGO_ENABLED=0 \
    go build -trimpath -buildvcs=false -ldflags="-s -w" -o "$tmp" .
) >&2
chmod 755 "$tmp"
mv -f "$tmp" "$out"
trap - EXIT
echo "build.sh: built in $((SECONDS - start))s" >&2

echo "$out"
