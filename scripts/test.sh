#!/usr/bin/env bash
# Runs keel's whole test suite on a fresh Debian machine: installs what the
# tests need (bubblewrap for the sandbox, PostgreSQL's server binaries for
# the PostgreSQL store, Node.js for the Mastra client test and the MCP
# tests, and their npm packages from their lockfiles, chromium for the
# console's browser tests, ImageMagick, avifenc and exiftool for the image
# conversion tests, LibreOffice for the converter that runs it and the
# files the PDF tests read, docker.io and busybox-static for the Docker
# sandbox, whose engine it starts when none answers), checks formatting and
# vet, then runs every test with the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '==> %s\n' "$*"; }

need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
# mkfs.ext4 gives a sandbox a file system of its own (localsandbox's
# OwnFilesystem); unshare runs keel as PID 1 of a pid namespace.
PATH=$PATH:/sbin:/usr/sbin command -v mkfs.ext4 >/dev/null 2>&1 || need+=(e2fsprogs)
command -v unshare >/dev/null 2>&1 || need+=(util-linux)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# ImageMagick (with libheif, so it writes HEIC and AVIF), libavif's avifenc
# (rotated and mirrored AVIF) and exiftool make the images the image
# conversion tests read. A stand-in convert without ImageMagick behind it
# lists no formats.
grep -q 'HEIC.*rw' <<<"$(convert -list format 2>/dev/null || true)" || need+=(imagemagick)
command -v avifenc >/dev/null 2>&1 || need+=(libavif-bin)
command -v exiftool >/dev/null 2>&1 || need+=(libimage-exiftool-perl)
# poppler's pdftotext, a TeX engine and a CJK font write and
# read the PDFs the PDF converter's tests compare; qpdf encrypts them.
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
# LibreOffice's writer, calc and impress, for the converter that hands
# it the files keel does not read and to write PDFs the PDF tests read:
# the variants without a GUI, unless the GUI ones are installed already
# (the two conflict).
lo=-nogui
dpkg -s libreoffice-core >/dev/null 2>&1 && lo=
for c in writer calc impress; do
	dpkg -s "libreoffice-$c" >/dev/null 2>&1 || dpkg -s "libreoffice-$c-nogui" >/dev/null 2>&1 || need+=("libreoffice-$c$lo")
done
command -v pdflatex >/dev/null 2>&1 || need+=(texlive-latex-base)
# grep reads to the end (no -q): with pipefail, a grep that stops at the
# first match fails the pipeline when fc-list then dies writing to it.
fc-list 2>/dev/null | grep -i wqy >/dev/null || need+=(fonts-wqy-microhei)
command -v qpdf >/dev/null 2>&1 || need+=(qpdf)
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || need+=(busybox-static)
if ((${#need[@]})); then
	say "installing ${need[*]}"
	sudo=()
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# npm ci, tried three times: the registry sometimes drops a connection
# half way ("Idle timeout reached"), and a fresh try succeeds.
npmci() {
	local try
	for try in 1 2 3; do
		npm ci "$@" && return 0
		say "npm ci failed (try $try of 3)"
		sleep 5
	done
	return 1
}

if [ -f test/mastra-client/package-lock.json ]; then
	say "installing the Mastra client test's npm packages from its lockfile"
	npmci --prefix test/mastra-client --no-audit --no-fund --loglevel=error
fi
if [ -f test/mcp/package-lock.json ]; then
	# The MCP reference servers and inspector the MCP tests run. The
	# inspector declares Node 22 and runs its --cli on Node 20: npm warns.
	say "installing the MCP reference servers and inspector from their lockfile"
	npmci --prefix test/mcp --no-audit --no-fund --loglevel=error
fi
if [ -f test/mastra-studio/package-lock.json ]; then
	# Mastra Studio runs none of its packages' install scripts (they fetch
	# or build native tools it does not use): skipping them saves time.
	say "installing Mastra Studio (the mastra CLI) from its lockfile"
	npmci --prefix test/mastra-studio --ignore-scripts --no-audit --no-fund --loglevel=error
fi

# The Docker sandbox's tests need an engine. When none answers (at
# $DOCKER_HOST, else /var/run/docker.sock) and this runs as root, as CI
# does in its VM, one is started for this run alone: its own socket, data
# and state under a temporary directory, no iptables and no bridge (the
# sandboxes have no network), the vfs storage driver (it works on any file
# system), and users remapped, so that the host's root is root in no
# container. It is stopped when the script ends.
dockerd_pid=
dockerd_dir=
stop_dockerd() {
	if [ -n "$dockerd_pid" ]; then
		kill "$dockerd_pid" 2>/dev/null || true
		for _ in $(seq 1 60); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
		kill -9 "$dockerd_pid" 2>/dev/null || true
	fi
	if [ -n "$dockerd_dir" ]; then
		umount -R "$dockerd_dir" 2>/dev/null || true
		rm -rf "$dockerd_dir"
	fi
}
if ! docker info >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	dockerd_dir=$(mktemp -d /tmp/keel-dockerd.XXXXXX)
	# The remapped root must pass through the data root's parents.
	chmod 711 "$dockerd_dir"
	trap stop_dockerd EXIT
	say "starting dockerd (log: $dockerd_dir/dockerd.log)"
	dockerd --host "unix://$dockerd_dir/docker.sock" --data-root "$dockerd_dir/data" \
		--exec-root "$dockerd_dir/exec" --pidfile "$dockerd_dir/docker.pid" \
		--storage-driver=vfs --iptables=false --bridge=none --userns-remap=default \
		>"$dockerd_dir/dockerd.log" 2>&1 &
	dockerd_pid=$!
	export DOCKER_HOST="unix://$dockerd_dir/docker.sock"
	for _ in $(seq 1 120); do
		docker info >/dev/null 2>&1 && break
		if ! kill -0 "$dockerd_pid" 2>/dev/null; then
			tail -20 "$dockerd_dir/dockerd.log" >&2
			echo "dockerd exited at start" >&2
			exit 1
		fi
		sleep 0.5
	done
	docker info >/dev/null 2>&1 || { tail -20 "$dockerd_dir/dockerd.log" >&2; echo "dockerd did not answer in 60 s" >&2; exit 1; }
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
# CI=true makes tests that need bwrap, PostgreSQL, Node, chromium or a Docker
# engine fail instead of skipping when those are missing: here they were just
# installed, or started.
#
# The packages whose tests take minutes are named first: go test starts
# packages in the order given, two at a time, so these run beside the many
# short ones instead of one of them running alone at the end.
CI=true go test -race -count=1 -timeout 40m ./cmd/keel ./workspace/dockersandbox ./convert \
	./workspace/localsandbox ./console ./convert/imageconv ./...

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
# Two targets at a time (FUZZJOBS): each is mostly the fuzzing engine's
# start and its pass over the seed corpus, one core's work, so two at once
# take half the time on two cores. A target's output is shown when it fails.
fuzz_one() {
	local dir=$1 target=$2 log
	log=$(mktemp)
	if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel 1 "$dir" >"$log" 2>&1; then
		printf '==> fuzz %s %s: ok\n' "$dir" "$target"
		rm -f "$log"
		return 0
	fi
	printf '==> fuzz %s %s: FAILED\n' "$dir" "$target"
	cat "$log"
	rm -f "$log"
	return 1
}
export -f fuzz_one
export FUZZTIME
git grep -l '^func Fuzz' -- '*_test.go' | sort | while read -r file; do
	dir=./$(dirname "$file")
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
		echo "$dir $target"
	done
done | xargs -P "${FUZZJOBS:-2}" -L 1 bash -c 'fuzz_one "$0" "$1"'
