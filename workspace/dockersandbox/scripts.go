package dockersandbox

import (
	"strconv"
	"time"
)

// The container runs two small shell programs of keel's, which need only
// a POSIX sh and sleep, date, du, setsid and kill: the idle watcher is
// its main process, and every exec runs under the command wrapper. Both
// keep their state in /tmp/.keel, on the container's tmpfs: one file per
// running exec, run.<token>, holding the wrapper's process ID.

// containerProcesses is how many processes the container itself takes
// beside the commands: docker-init, the watcher, its sleep, and the
// date it runs now and then. The process limit is raised by as much.
const containerProcesses = 4

// wrapperProcesses is how many of a command's processes are its wrapper's:
// the wrapper and its time limit's subshell and sleep.
const wrapperProcesses = 3

// watcherScript is the container's main process: every tick it looks for
// execs that ran since the last one (their run files) and forgets those
// that ended; once none ran for the idle time ($1 seconds, 0 for never)
// it exits, which stops the container, and the engine removes it (its
// volume stays). A command that outlives keel (the server died) keeps it
// running only until its own time limit, which the wrapper enforces.
const watcherScript = `mkdir -p /tmp/.keel
idle=$1
last=$(date +%s)
while sleep "$2"; do
	now=$(date +%s) || continue
	for f in /tmp/.keel/run.*; do
		[ -e "$f" ] || continue
		last=$now
		p=
		read -r p < "$f"
		[ -n "$p" ] && [ ! -d "/proc/$p" ] && rm -f "$f"
	done
	[ "$idle" -gt 0 ] && [ $((now - last)) -ge "$idle" ] && exit 0
done`

// idleTick is how often the watcher looks: a quarter of the idle time,
// from 1 to 30 seconds.
func idleTick(idle time.Duration) string {
	t := min(max(idle/4, time.Second), 30*time.Second)
	return strconv.Itoa(int(t / time.Second))
}

// wrapperScript runs the command $1 as sh -c in a session (and so a
// process group) of its own, with the exec's stdin, and ends the whole
// group when the command's shell exits, so that nothing it started in the
// background outlives it or holds its output open. It writes its process
// ID to /tmp/.keel/run.$KEEL_COMMAND, where keel's kill (TERM) finds it:
// TERM ends the group and the wrapper with status 143. After $2 seconds it
// sends itself TERM, which ends a command whose keel went away. When $3 is
// 1 it measures the working directory (KiB, or - when du fails) before
// the command, as the first line of stderr, and after it, as the last
// line (see diskFilter).
const wrapperScript = `m=$3
[ -d /tmp/.keel ] || mkdir -p /tmp/.keel
echo $$ > "/tmp/.keel/run.$KEEL_COMMAND"
c= w=
measure() { u=$(du -sk . 2>/dev/null) && u=${u%%[!0-9]*} || u=-; }
end() {
	trap '' TERM
	[ -n "$c" ] && kill -9 -$c 2>/dev/null
	[ -n "$w" ] && kill $w 2>/dev/null
	[ "$m" = 1 ] && measure && printf '\nkeel-du %s %s\n' "$KEEL_COMMAND" "$u" >&2
	exit $1
}
trap 'end 143' TERM
[ "$m" = 1 ] && measure && printf 'keel-du %s\n' "$u" >&2
( s=; sleep "$2" & s=$!; trap 'kill $s 2>/dev/null; exit 0' TERM; wait $s; kill -TERM $$ ) </dev/null >/dev/null 2>&1 &
w=$!
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

// duScript measures the working directory in KiB.
const duScript = `u=$(du -sk .) && printf '%s\n' "${u%%[!0-9]*}"`
