#!/usr/bin/env bash
# Mutation testing of keel's core with gremlins: each mutant is one small
# change to the code (a flipped condition, a changed boundary, an inverted
# sign); the package's tests run against it and must fail ("KILLED"). A
# mutant the tests let pass ("LIVED") is behaviour no test pins.
#
# Too slow for CI: run by hand, one package at a time if need be.
#
#   scripts/mutation.sh                    # every package below
#   scripts/mutation.sh agent processor    # only these
#   WORKERS=2 OUT=/tmp/m scripts/mutation.sh server
#
# For each package the log (every mutant and its status) and the
# machine-readable results go to $OUT/<package>.log and .json; the score is
# the "Test efficacy" line of the log (killed / (killed + lived)).
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned so that scores from different runs compare.
GREMLINS=github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
OUT=${OUT:-${TMPDIR:-/tmp}/keel-mutation}
WORKERS=${WORKERS:-1}
# A mutant whose tests run longer than the coefficient times the unmutated
# run is "TIMED OUT" (killed by a hang). A shared, loaded machine needs a
# generous coefficient or slow runs are miscounted as timeouts.
TIMEOUT_COEFFICIENT=${TIMEOUT_COEFFICIENT:-10}

packages=("$@")
if ((${#packages[@]} == 0)); then
	packages=(agent processor server workspace memory provider/openai provider/anthropic provider/google)
fi

mkdir -p "$OUT"
for pkg in "${packages[@]}"; do
	name=${pkg//\//-}
	printf '==> %s (log: %s/%s.log)\n' "$pkg" "$OUT" "$name"
	# Not --test-cpu: gremlins v0.6.0 passes it to go test as the one
	# argument "-cpu N", which the test binary refuses, so that every
	# mutant fails its tests and counts as KILLED. GOMAXPROCS below bounds
	# the CPUs instead.
	# --coverpkg: code of a package exercised by the tests of another
	# package under it (memory/internal/sqlstore through sqlitestore's
	# tests) counts as covered, so its mutants run too.
	GOMAXPROCS=${GOMAXPROCS:-$WORKERS} go run "$GREMLINS" unleash \
		--workers "$WORKERS" \
		--timeout-coefficient "$TIMEOUT_COEFFICIENT" \
		--coverpkg "./$pkg/..." \
		--output "$OUT/$name.json" \
		"./$pkg" >"$OUT/$name.log" 2>&1 || true
	grep -E 'Killed:|Test efficacy|Mutator coverage' "$OUT/$name.log" || tail -5 "$OUT/$name.log"
done
