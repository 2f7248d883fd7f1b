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
// count their blocks). When $2 is given, the line is also written to that
// file (the last measurement, see wrapperScript).
//
// It is one awk, $keel_measure, which runs du -ab, then du -sk, and reads
// their output and their exit status itself, so that a measurement
// starts as few processes as it can (awk and the two du; each costs a
// wait for a CPU on a loaded machine) and no line of a du's output is
// trusted for the other's success: a name with a newline in it can make
// du print any line but its last, which is always its own total of ".",
// and a du that failed or was killed is a failed measurement whatever it
// printed. Entries are counted from du -ab's lines, and the count stops
// the walk as soon as it is past the limit (du -ab then dies of the
// closed pipe, and du -sk never runs), so that a tree of too many files
// is found out quickly rather than measured at length; a name's newlines
// can only add lines, counted as entries. With -v st=N, awk exits N (the
// wrapper execs it last, with its command's status).
const measureFunc = `keel_measure='BEGIN {
	s = "keel-du 1"
	c = "du -ab . 2>/dev/null"
	while ((r = (c | getline l)) > 0 && !(max > 0 && ++n > max))
		b = l
	ok = close(c) == 0 && r == 0
	if (r > 0)
		s = "keel-du 2"
	else if (ok && b ~ /^[0-9]+\t\.$/) {
		c = "du -sk . 2>/dev/null"
		if ((c | getline k) > 0 && close(c) == 0 && k ~ /^[0-9]+\t\.$/) {
			split(b, x, "\t"); split(k, y, "\t")
			v = y[1] * 1024; if (x[1] + 0 > v) v = x[1] + 0
			s = sprintf("keel-du 0 %.0f", v)
		}
	}
	print s
	if (last != "") print s > last
	exit st + 0
}'
keel_du() {
	awk -v max="$1" -v last="$2" "$keel_measure"
}
`

// wrapperScript runs the command $1 as sh -c in a session (and so a
// process group) of its own, with the exec's stdin, and ends the whole
// group when the command's shell exits, so that nothing it started in the
// background outlives it or holds its output open. It writes its process
// ID and $2, the Unix time after which the watcher ends it (a little
// later than keel would), to /tmp/.keel/run.$KEEL_COMMAND, where keel's
// kill (TERM) finds it: TERM ends the group and the wrapper with status
// 143. It runs no process of its own but setsid and the measuring: each
// costs time on a loaded machine (the measuring after the command is the
// wrapper itself, become awk, which exits with the command's status).
//
// When $3 is 1 it reports the working directory's size on stderr (see
// diskFilter) before the command and after it, with $4 the limit on
// entries and $5 the disk quota in bytes. After the command it measures
// (keel_du), and keeps the line in /tmp/.keel/du, on the container's
// tmpfs, shared by every exec. Before the command it reads that line
// with the shell's read (no process), and reports it as it is when it
// says the sandbox was within its quota; else (no line yet, a failed
// measurement, over the quota, or anything unreadable) it measures. The
// size before matters only when it is over the quota: a command may take
// its sandbox to the larger of the quota and what it held when it started
// (diskquota.Limit). A line that says "within the quota" leaves the
// command held to the quota itself, the strictest limit any command gets;
// so a line gone stale, or one a command wrote there itself, can only
// make a command's limit stricter than a fresh measurement would, never
// looser. Measured after every command, by every write's check of room
// (writes that keep it within the quota) and unchanged by removals, the
// line is stale only when something else wrote in the meantime: another
// command running at the same time, or a process left behind by one
// (setsid), which then has the next command held to the quota and ended
// at its first measurement if the sandbox is over it, as a command that
// starts in a sandbox that cannot be measured is.
const wrapperScript = measureFunc + `m=$3 files=$4
[ -d /tmp/.keel ] || mkdir -p /tmp/.keel
echo "$$ $2" > "/tmp/.keel/run.$KEEL_COMMAND"
c=
end() {
	trap '' TERM
	[ -n "$c" ] && kill -9 -$c 2>/dev/null
	if [ "$m" = 1 ]; then
		printf '\nkeel-du %s\n' "$KEEL_COMMAND" >&2
		exec awk -v max="$files" -v last=/tmp/.keel/du -v st="$1" "$keel_measure" >&2
	fi
	exit $1
}
trap 'end 143' TERM
if [ "$m" = 1 ]; then
	b=
	{ read -r b < /tmp/.keel/du; } 2>/dev/null
	n=${b#keel-du 0 }
	case $n in
	"$b" | "" | *[!0-9]*) n= ;;
	esac
	if [ -n "$n" ] && [ "$n" -le "$5" ] 2>/dev/null; then
		echo "$b" >&2
	else
		keel_du "$files" /tmp/.keel/du >&2
	fi
fi
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
