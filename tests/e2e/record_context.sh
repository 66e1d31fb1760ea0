#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Context events recorded on this machine's tracefs (vmtrace-record --context), read back
# with tests/helpers/ctxstat (the reader's context formats, common/ctxevent's decoder).
# The syscall pair on CPU 1 with the default context while a CPU-bound shell loop pinned
# to CPU 1 competes with syscall_loop:
# - the file lists the default events this kernel has (each present in tracefs) and
#   names the others missing (each absent), as the default list in common/ctxevent.c;
# - the loop's sched_switch records match its own counts in /proc/PID/status exactly
#   (read while it sleeps, before and after its calls): switched out runnable =
#   nonvoluntary switches, asleep = voluntary ones; the competitor's are there too;
# - the KVM_RUN filter keeps exactly the ioctls a task made with KVM_RUN's number and
#   drops every other ioctl.
# Then: --context none records no context event; an explicit list records just it; a list
# that begins with a removal records the defaults but it; an unknown name exits 64 with one
# line; --to-vmt keeps the keys; a trace.dat written by trace-cmd from an instance with
# sched_switch lists the context formats it holds, its sched_switch count equal to
# `trace-cmd report`'s. The kvm:* events exist here but never
# fire (no hardware KVM): expected, not checked.
. "$(dirname "$0")/lib.sh"
need_tracefs

T=/sys/kernel/tracing
CTX="$HELPERS/ctxstat"
N=300000
NRUN=37

# Errors first: nothing is created.
ls $T/instances >instances.before
run vmtrace-record -p 1 -s 1 -e "$SYSCALL_EVENTS" --context sched:sched_switch,sched:no_such_event \
	-o bogus.vmt
expect_rc 64 "unknown context event"
[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "unknown context event: not one line"; }
expect_one_line_error vmtrace-record "sched:no_such_event is not an event on this kernel"
[ ! -e bogus.vmt ] || fail "a file for a refused command line"
ls $T/instances | diff instances.before - || fail "instances changed"
for bad in none,sched:sched_switch sched sched:sched_switch,,nmi:nmi_handler ""; do
	run vmtrace-record -p 1 -s 1 --context "$bad"
	expect_rc 64 "--context '$bad'"
	expect_one_line_error vmtrace-record "invalid --context"
done

# The default list as common/ctxevent.c declares it, read here with awk.
awk '/vmt_ctx_default_events\[\] = \{/ { on = 1; next }
     on && /^};/ { exit }
     on && match($0, /\{ "[a-z_0-9]+", "[a-z_0-9]+"/) {
	s = substr($0, RSTART, RLENGTH); gsub(/[{" ]/, "", s); sub(/,/, ":", s); print s }' \
	"$top_srcdir/common/ctxevent.c" | sort >defaults.txt
[ "$(wc -l <defaults.txt)" -ge 20 ] || fail "cannot read the default list"
on_kernel() { [ -d "$T/events/${1%%:*}/${1#*:}" ]; }
field() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$2"; }
records() { awk -v e="$1" '$1 == "records" && $2 == e { print $3 }' "$2"; }
# "task PID in N runnable R sleeping S dead D kvm_run K" -> $4 $6 $8 $10 $12
task() { awk -v p="$1" '$1 == "task" && $2 == p' "$2"; }

wait_for() {	# wait_for PATTERN FILE
	for _ in $(seq 400); do
		grep -q "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "no '$1' in $2"
}
asleep() {	# the task waits in read(): its switch counts stand still
	for _ in $(seq 400); do
		[ "$(awk '{ print $3 }' "/proc/$1/stat")" = S ] && return 0
		sleep 0.05
	done
	fail "pid $1 does not go to sleep"
}
switches() {
	awk '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 }
	     END { print v, n }' "/proc/$1/status"
}

mkfifo go
"$HELPERS/syscall_loop" 1 $N wait <go >loop.txt &
loop_pid=$!
cleanup_hooks="$cleanup_hooks; kill $loop_pid 2>/dev/null"
exec 8>go
wait_for ready loop.txt
asleep $loop_pid
set -- $(switches $loop_pid)
vol0=$1 nvol0=$2
taskset -c 1 sh -c 'while :; do :; done' &
spin_pid=$!
cleanup_hooks="$cleanup_hooks; kill $spin_pid 2>/dev/null"
start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o ctx.vmt
# ioctls on CPU 1 with KVM_RUN's number (kept: /dev/null refuses them, the tracepoint
# fires first) and with TCGETS's (dropped by the filter)
taskset -c 1 python3 -c '
import fcntl, os, sys
print(os.getpid(), flush=True)
fd = os.open("/dev/null", os.O_RDONLY)
for cmd, n in ((0xae80, int(sys.argv[1])), (0x5401, 50)):
    for _ in range(n):
        try:
            fcntl.ioctl(fd, cmd)
        except OSError:
            pass
' $NRUN >ioctl.txt || fail "the ioctl task"
ioctl_pid=$(cat ioctl.txt)
echo go >&8
wait_for calls loop.txt
asleep $loop_pid
set -- $(switches $loop_pid)
vol1=$1 nvol1=$2
kill -INT "$rec_pid"
wait "$rec_pid"
rc=$?
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record exited $rc"; }
kill $spin_pid
echo go >&8
wait $loop_pid || fail "syscall_loop"
no_instance_left "$rec_pid"

# A syscall pair's causes in its own words: nothing about guests, vCPUs or exits
run vmtrace-report ctx.vmt
expect_rc 0 "text report"
sed -n '/^Where the /,/^Longest pairs/p' out.txt >causes.txt
grep -q "^Where the time from begin to end went (share of each id's total" causes.txt ||
	{ cat out.txt; fail "no neutral causes heading"; }
! grep -n -i "guest\|vcpu\|exits\|reason" causes.txt || fail "KVM words in a syscall pair's causes"
run vmtrace-report --json ctx.vmt
expect_rc 0 "report"
[ "$(json out.txt 'd["lost_events"] + d["lost_events_stats"]')" = 0 ] ||
	fail "events lost: the counts below would not be exact"
"$CTX" ctx.vmt $loop_pid $spin_pid $ioctl_pid >ctx.txt || fail "ctxstat ctx.vmt"

# The list and the missing ones: together the default list; each as tracefs says.
field events ctx.txt | tr , '\n' >events.txt
field missing ctx.txt | tr , '\n' | grep -v '^-$' >missing.txt
sort events.txt missing.txt | diff defaults.txt - || fail "listed + missing is not the default list"
while read -r e; do on_kernel "$e" || fail "$e listed but not on this kernel"; done <events.txt
while read -r e; do ! on_kernel "$e" || fail "$e named missing but on this kernel"; done <missing.txt
if [ -s missing.txt ]; then
	[ "$(unfold rec.err | grep -c 'context events not on this kernel')" = 1 ] || fail "missing not named once"
	unfold rec.err | grep "context events not on this kernel" | tr -d ' ' |
		grep -q "kernel:$(paste -sd, missing.txt)\$" || fail "the line names other events"
fi
[ "$(field formats ctx.txt)" = "$(wc -l <events.txt) skipped 0" ] || fail "formats: $(field formats ctx.txt)"
[ "$(field other ctx.txt)" = 0 ] || fail "records of events not listed"
grep -a -q "format.ctx.sched:sched_switch" ctx.vmt || fail "no format.ctx key"

# The loop's switches, as its own counters have them.
set -- $(task $loop_pid ctx.txt)
in=$4 runnable=$6 sleeping=$8 dead=${10}
[ "$runnable" = $((nvol1 - nvol0)) ] ||
	fail "loop switched out runnable $runnable times, /proc says $((nvol1 - nvol0)) nonvoluntary"
[ "$sleeping" = $((vol1 - vol0)) ] ||
	fail "loop switched out asleep $sleeping times, /proc says $((vol1 - vol0)) voluntary"
[ "$runnable" -ge 1 ] || fail "the competitor never preempted the loop"
# Switched in once per switch out, but for a few: this machine's kernel never records a
# sched_switch out of some threads of its init process (tokio-rt-worker, vsock-console; its
# own text trace has none either), so a switch back to the loop after them is missing.
[ "$in" -ge 1 ] && [ "$in" -le $((runnable + sleeping)) ] && [ "$dead" = 0 ] ||
	fail "loop: $(task $loop_pid ctx.txt)"
set -- $(task $spin_pid ctx.txt)
[ "$4" -ge 1 ] && [ "$6" -ge 1 ] || fail "competitor: $(task $spin_pid ctx.txt)"
# KVM_RUN: the ioctl task's, all kept; no other ioctl recorded at all.
set -- $(task $ioctl_pid ctx.txt)
[ "${12}" = $NRUN ] || fail "$NRUN KVM_RUN ioctls made, ${12} recorded"
[ "$(records syscalls:sys_enter_ioctl ctx.txt)" = "$(field kvm_run ctx.txt)" ] ||
	fail "ioctls other than KVM_RUN recorded"

# --to-vmt keeps every context key: the same answers from the copy.
vmtrace-convert --to-vmt -o copy.vmt ctx.vmt || fail "--to-vmt"
"$CTX" copy.vmt $loop_pid $spin_pid $ioctl_pid | diff ctx.txt - || fail "--to-vmt changed the context"

# --context none: the pair only, and no context.events key ("not recorded").
"$HELPERS/syscall_loop" 1 0 3 >/dev/null &
bg=$!
run vmtrace-record -q -p 1 -c 0 -s 500ms -e "$SYSCALL_EVENTS" --context none -o none.vmt
expect_rc 0 "--context none"
# No message about context events; a flat-out loop on a loaded machine may lose events,
# and that warning alone is allowed (the counts below do not depend on it).
! unfold err.txt | grep -v "^vmtrace-record: warning: events were lost: " ||
	fail "--context none: messages"
"$CTX" none.vmt >none.txt || fail "ctxstat none.vmt"
[ "$(field events none.txt)" = - ] && [ "$(field missing none.txt)" = - ] &&
	[ "$(field other none.txt)" = 0 ] && [ "$(field pair none.txt)" -gt 0 ] ||
	{ cat none.txt; fail "--context none recorded context"; }
! grep -a -q "context.events" none.vmt || fail "--context none: a context.events key"

# An explicit list: just it, in its order, the pair's own event left out.
run vmtrace-record -q -p 1 -c 0 -s 500ms -e sched:sched_switch,raw_syscalls:sys_exit \
	--context irq_vectors:local_timer_entry,sched:sched_switch,irq_vectors:local_timer_exit \
	-o list.vmt
expect_rc 0 "explicit list"
wait $bg
"$CTX" -p sched:sched_switch,raw_syscalls:sys_exit list.vmt >list.txt || fail "ctxstat list.vmt"
[ "$(field events list.txt)" = irq_vectors:local_timer_entry,irq_vectors:local_timer_exit ] ||
	fail "explicit list: $(field events list.txt)"
[ "$(field missing list.txt)" = - ] || fail "explicit list: missing $(field missing list.txt)"
[ "$(records irq_vectors:local_timer_entry list.txt)" -gt 0 ] || fail "no local timer"

# A list that begins with a removal starts from the default list: every default this
# kernel has but sched:sched_switch (vmtrace-report --json's context_events, the file's).
run vmtrace-record -q -p 1 -c 0 -s 300ms -e "$SYSCALL_EVENTS" --context -sched:sched_switch \
	-o minus.vmt
expect_rc 0 "--context -sched:sched_switch"
while read -r e; do
	on_kernel "$e" && [ "$e" != sched:sched_switch ] && echo "$e"
done <defaults.txt >minus.want
run vmtrace-report --json minus.vmt
expect_rc 0 "report on minus.vmt"
json out.txt '"\n".join(sorted(d["context_events"]))' >minus.got
[ "$(wc -l <minus.want)" -ge 10 ] || fail "too few defaults on this kernel to compare"
diff minus.want minus.got || fail "--context -sched:sched_switch: not the defaults but one"

# trace-cmd's trace.dat of an instance recording sched_switch: the context formats it
# holds (trace-cmd saves every event's format) and sched_switch counted like trace-cmd.
command -v trace-cmd >/dev/null || { echo "trace-cmd not installed: trace.dat part skipped"; exit 0; }
inst=$T/instances/vmtrace-e2e-ctx-$$
cleanup_hooks="$cleanup_hooks; [ ! -d $inst ] || rmdir $inst"
mkdir "$inst" || fail "cannot create an instance"
echo 4096 >"$inst/buffer_size_kb"
echo 2 >"$inst/tracing_cpumask"
for e in raw_syscalls/sys_enter raw_syscalls/sys_exit sched/sched_switch; do
	echo 1 >"$inst/events/$e/enable"
done
taskset -c 1 sh -c 'while :; do :; done' &
spin_pid=$!
echo 1 >"$inst/tracing_on"
"$HELPERS/syscall_loop" 1 20000 >/dev/null || fail syscall_loop
echo 0 >"$inst/tracing_on"
kill $spin_pid
trace-cmd extract -B "$(basename "$inst")" -o x.dat >tc.log 2>&1 || { cat tc.log; fail "trace-cmd extract"; }
[ ! -d "$inst" ] || rmdir "$inst"
trace-cmd convert --file-version 6 --compression none -i x.dat -o x6.dat >tc.log 2>&1 ||
	{ cat tc.log; fail "trace-cmd convert to v6"; }
tc=$(trace-cmd report -i x.dat 2>/dev/null | grep -c ' sched_switch: ')
[ "$tc" -gt 0 ] || fail "trace-cmd reports no sched_switch"
for f in x.dat x6.dat; do
	"$CTX" -p "$SYSCALL_EVENTS" "$f" >dat.txt || fail "ctxstat $f"
	field events dat.txt | tr , '\n' | sort >dat-events.txt
	while read -r e; do
		! on_kernel "$e" || grep -qx "$e" dat-events.txt || fail "$f: $e not listed"
	done <defaults.txt
	grep -qx sched:sched_wakeup dat-events.txt || fail "$f: sched_wakeup not listed"
	[ "$(records sched:sched_switch dat.txt)" = "$tc" ] ||
		fail "$f: $(records sched:sched_switch dat.txt) sched_switch, trace-cmd $tc"
done
exit 0
