#!/usr/bin/env bash
# Builds keel's release binaries, one per platform, into dist/ (or $DIST),
# with a SHA256SUMS file beside them:
#
#   bash scripts/release.sh                  # linux and macOS, amd64 and arm64
#   bash scripts/release.sh linux/amd64      # only the platforms named
#
# Each binary is built with -trimpath (no path of the building machine in
# it, so the same commit builds the same bytes anywhere) and -ldflags
# "-s -w" (no symbol table or debug information: 73 MB instead of 106),
# without cgo (SQLite is pure Go), so it runs on any machine of its
# platform. `keel version` reports the module version and revision that
# Go records from the repository, so build from a git clone of the commit
# to release (tag it first, such as v0.1.0, for a version rather than a
# pseudo-version). Go records nothing in a git worktree: the script stops
# if a binary holds no revision.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '==> %s\n' "$*"; }

platforms=("$@")
if ((${#platforms[@]} == 0)); then
	platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
fi
out=${DIST:-dist}
version=$(git describe --tags --always --dirty)
if [[ $version == *-dirty ]]; then
	echo "release.sh: the tree has uncommitted changes: commit or stash them, so that the binaries are those of a commit" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$out"
for p in "${platforms[@]}"; do
	goos=${p%/*}
	goarch=${p#*/}
	bin="$out/keel-$version-$goos-$goarch"
	say "building $bin"
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -buildvcs=true -trimpath -ldflags "-s -w" -o "$bin" ./cmd/keel
	if ! go version -m "$bin" | grep 'vcs.revision=' >/dev/null; then
		echo "release.sh: $bin holds no revision: build from a git clone, not a git worktree" >&2
		exit 1
	fi
done
sum() { if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }
(cd "$out" && sum keel-* >SHA256SUMS)
say "done: $(ls "$out" | tr '\n' ' ')"
