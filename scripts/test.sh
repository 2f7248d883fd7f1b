#!/usr/bin/env bash
# Runs keel's whole test suite on a fresh Debian machine: installs what the
# tests need (bubblewrap for the sandbox, PostgreSQL's server binaries for
# the PostgreSQL store, Node.js for the Mastra client test, and that test's
# npm packages from its lockfile, chromium for the studio's browser tests,
# LibreOffice for the converter that runs it),
# checks formatting and vet, then runs every test with the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '==> %s\n' "$*"; }

need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# LibreOffice, for the converter that hands it the files keel does not read.
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui)
if ((${#need[@]})); then
	say "installing ${need[*]}"
	sudo=()
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

if [ -f test/mastra-client/package-lock.json ]; then
	say "installing the Mastra client test's npm packages from its lockfile"
	npm ci --prefix test/mastra-client --no-audit --no-fund --loglevel=error
fi
if [ -f test/mastra-studio/package-lock.json ]; then
	# Mastra Studio runs none of its packages' install scripts (they fetch
	# or build native tools it does not use): skipping them saves time.
	say "installing Mastra Studio (the mastra CLI) from its lockfile"
	npm ci --prefix test/mastra-studio --ignore-scripts --no-audit --no-fund --loglevel=error
fi

say "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	printf 'gofmt would change:\n%s\n' "$unformatted" >&2
	exit 1
fi

say "go vet"
go vet ./...

say "go test -race"
# CI=true makes tests that need bwrap, PostgreSQL, Node or chromium fail instead of
# skipping when those are missing: here they were just installed.
CI=true go test -race -count=1 -timeout 40m ./...

say "fuzz targets, briefly"
# Every fuzz target of the module, found anew each run so that a new one is
# picked up, runs for FUZZTIME (50 new inputs by default) with one worker.
# The seed corpus and testdata/fuzz entries already ran as tests above; this
# looks a little further. docs/testing.md says how to run one for long.
# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can
# report "context deadline exceeded" as a failure when the time runs out
# while a worker is busy (golang/go#75804, fixed in Go 1.27), which a loaded
# machine hits with no failing input at all. A count has no deadline.
FUZZTIME=${FUZZTIME:-50x}
git grep -l '^func Fuzz' -- '*_test.go' | sort | while read -r file; do
	dir=./$(dirname "$file")
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
		say "fuzz $dir $target"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel 1 "$dir"
	done
done
