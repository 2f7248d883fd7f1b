package dockersandbox

import (
	"strconv"
	"time"
)

// The container runs two small shell programs of keel's, which need only
// a POSIX sh and sleep, date, du, awk, setsid and kill: the idle watcher is
// its main process, and every exec runs under the command wrapper. Both
// keep their state in /tmp/.keel, on the container's tmpfs: one file per
// running exec, run.<token>, holding the wrapper's process ID.

// containerProcesses is how many processes the container itself takes
// beside the commands: docker-init, the watcher, its sleep, and the
// date it runs now and then. The process limit is raised by as much.
const containerProcesses = 4

// watcherScript is the container's main process: every tick it looks at
// the run files of the execs: one whose wrapper is past its deadline
// (its command's keel went away) is sent TERM, one whose wrapper ended
// is forgotten; any run file means a command ran since the last tick.
// Once none ran for the idle time ($1 seconds, 0 for never) it exits,
// which stops the container, and the engine removes it (its volume
// stays).
const watcherScript = `mkdir -p /tmp/.keel
idle=$1
last=$(date +%s)
while sleep "$2"; do
	now=$(date +%s) || continue
	for f in /tmp/.keel/run.*; do
		[ -e "$f" ] || continue
		last=$now
		p= d=
		read -r p d < "$f"
		[ -n "$p" ] || continue
		if [ ! -d "/proc/$p" ]; then rm -f "$f"; elif [ -n "$d" ] && [ "$now" -ge "$d" ]; then kill -TERM "$p"; fi
	done
	[ "$idle" -gt 0 ] && [ $((now - last)) -ge "$idle" ] && exit 0
done`

// idleTick is how often the watcher looks: a quarter of the idle time,
// from 1 to 30 seconds.
func idleTick(idle time.Duration) string {
	t := min(max(idle/4, time.Second), 30*time.Second)
	return strconv.Itoa(int(t / time.Second))
}

// measureFunc defines keel_du, which measures the working directory and
// prints one line: "keel-du 0 BYTES" when it could, "keel-du 1" when
// something could not be read (a directory nested past PATH_MAX, which
// busybox's du cannot reach, or one without read permission), "keel-du 2"
// when the directory holds more entries than $1 (0 for no limit). BYTES
// is the larger of the apparent total (du -b: a sparse file counts its
// holes) and the allocated total (du -k: blocks, so many small files
// count their blocks). Entries are counted from du -ab's lines, and the
// count stops the walk as soon as it is past the limit, so that a tree of
// too many files is found out quickly rather than measured at length.
const measureFunc = `keel_du() {
	set -- $({ du -ab . 2>/dev/null || echo failed; } | awk -v max="$1" '
$0 == "failed" { failed = 1; next }
max > 0 && NR > max { over = 1; exit }
{ b = $1 }
END { if (over) print 2; else if (failed || NR == 0) print 1; else print 0, b }')
	if [ "$1" = 0 ]; then
		k=$(du -sk . 2>/dev/null) && k=${k%%[!0-9]*} && [ -n "$k" ] || set -- 1
	fi
	if [ "$1" = 0 ]; then
		[ $((k * 1024)) -gt "$2" ] && set -- 0 $((k * 1024))
		echo "keel-du 0 $2"
	else
		echo "keel-du $1"
	fi
}
`

// wrapperScript runs the command $1 as sh -c in a session (and so a
// process group) of its own, with the exec's stdin, and ends the whole
// group when the command's shell exits, so that nothing it started in the
// background outlives it or holds its output open. It writes its process
// ID and $2, the Unix time after which the watcher ends it (a little
// later than keel would), to /tmp/.keel/run.$KEEL_COMMAND, where keel's
// kill (TERM) finds it: TERM ends the group and the wrapper with status
// 143. When $3 is 1 it measures the working directory (keel_du, with $4
// the limit on entries) before the command and after it, on stderr (see
// diskFilter). It runs no process of its own but setsid and the
// measuring: each costs time on a loaded machine.
const wrapperScript = measureFunc + `m=$3 files=$4
[ -d /tmp/.keel ] || mkdir -p /tmp/.keel
echo "$$ $2" > "/tmp/.keel/run.$KEEL_COMMAND"
c=
end() {
	trap '' TERM
	[ -n "$c" ] && kill -9 -$c 2>/dev/null
	if [ "$m" = 1 ]; then
		printf '\nkeel-du %s\n' "$KEEL_COMMAND" >&2
		keel_du "$files" >&2
	fi
	exit $1
}
trap 'end 143' TERM
[ "$m" = 1 ] && keel_du "$files" >&2
exec 3<&0
setsid /bin/sh -c "$1" <&3 3<&- &
c=$!
exec 3<&- </dev/null
wait $c
end $?`

// killScript sends TERM to the wrapper of the exec whose token is $1. It
// exits 3 when the wrapper has not written its process ID (not started
// yet, or the token is unknown), and 0 when the wrapper is told or was
// gone already.
const killScript = `f=/tmp/.keel/run.$1
p=
[ -e "$f" ] && read -r p < "$f"
[ -n "$p" ] || exit 3
kill -TERM "$p" 2>/dev/null
exit 0`

// killNotStarted is killScript's exit status when the wrapper has not
// written its process ID.
const killNotStarted = 3

// measureLine measures the working directory, with files the limit on
// its entries (0 for none).
func measureLine(files int64) string {
	return measureFunc + "keel_du " + strconv.FormatInt(max(files, 0), 10)
}
