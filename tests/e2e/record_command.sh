#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record -- COMMAND: the recording covers the command's whole run (the loop's own
# count of system calls against the pairs of its pid in the file), the command has the
# recorder's stdin and stdout, and the recorder's exit status is the command's: its code,
# 128+N for a signal (its own kill, and a SIGTERM sent to the recorder and passed on), 127
# when it cannot be found and 126 when it cannot be run, said before anything is recorded
# (a previous file left as it was). Bad command lines get one line and 64.
. "$(dirname "$0")/lib.sh"
need_tracefs

rec() {
	run vmtrace-record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none "$@"
}

# The loop makes its 100000 getppid() calls after tracing is on: all are pairs of its pid,
# plus the few calls of its start (exec, pinning, printing); nothing lost.
rec -o loop.vmt -- "$HELPERS/syscall_loop" 1 100000
expect_rc 0 "around syscall_loop"
loop_pid=$(awk '$1 == "pid" && $3 == "calls" { print $2 }' out.txt)
[ -n "$loop_pid" ] || fail "the loop's own line is not on the recorder's stdout"
grep -q "running syscall_loop (pid $loop_pid)" err.txt || fail "the command's pid is not said"
grep -q "syscall_loop exited with status 0" err.txt || fail "the command's end is not said"
grep -q "stopped by command" err.txt || fail "the stop reason is not the command"
run vmtrace-report --json loop.vmt
expect_rc 0 "report"
mv out.txt loop.json
[ "$(json loop.json 'd["finished"]')" = True ] || fail "the file is not finished"
[ "$(json loop.json 'd["lost_events"]')" = 0 ] || fail "events lost"
pairs=$(json loop.json "sum(t['pairs'] for t in d['vcpus'] if t['pid'] == $loop_pid)")
[ "$pairs" -ge 100000 ] && [ "$pairs" -lt 101000 ] ||
	fail "$pairs pairs of the loop's pid for its 100000 calls"

# stdin is the recorder's
printf 'through the recorder\n' >in.txt
rec -q -o cat.vmt -- cat <in.txt
expect_rc 0 "cat"
grep -qx "through the recorder" out.txt || fail "the command did not read the recorder's stdin"

# exit status N, 128+N for a signal
rec -q -o three.vmt -- sh -c 'exit 3'
expect_rc 3 "sh -c 'exit 3'"
[ -f three.vmt ] || fail "no file when the command failed"
run vmtrace-report --json three.vmt
[ "$(json out.txt 'd["finished"]')" = True ] || fail "exit 3: the file is not finished"
rec -o killed.vmt -- sh -c 'kill -9 $$'
expect_rc 137 "a command killed by SIGKILL"
grep -q "killed by signal 9" err.txt || fail "the signal is not said"

# SIGTERM to the recorder reaches the command; the recording ends with it, finished
start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none -o term.vmt -- sleep 30
for _ in $(seq 100); do
	grep -q "running sleep" rec.err && break
	sleep 0.05
done
sleep_pid=$(sed -n 's/.*running sleep (pid \([0-9]*\)).*/\1/p' rec.err)
[ -n "$sleep_pid" ] || { cat rec.err >&2; fail "sleep not started"; }
kill -TERM "$rec_pid"
wait "$rec_pid"
rc=$?
[ "$rc" = 143 ] || { cat rec.err >&2; fail "SIGTERM: exit $rc, expected 143 (the command's)"; }
kill -0 "$sleep_pid" 2>/dev/null && fail "the command survived the SIGTERM"
grep -q "passed to sleep" rec.err || fail "passing the signal on is not said"
no_instance_left "$rec_pid"
run vmtrace-report --json term.vmt
[ "$(json out.txt 'd["finished"]')" = True ] || fail "SIGTERM: the file is not finished"

# a command that is not there (127) or not a program (126): one line before anything is
# recorded; a previous file of that name keeps its name and bytes, no FILE.old, no part
cp loop.vmt none.vmt
printf 'not a program\n' >data.txt
chmod 644 data.txt
for cmd in ./no-such-command no-such-command-on-path "$PWD/data.txt" "$PWD"; do
	case $cmd in *no-such*) want=127 msg="$cmd: command not found" ;;
		     *) want=126 msg="$cmd: cannot run: Permission denied" ;; esac
	rec -o none.vmt -- "$cmd"
	expect_rc $want "the command $cmd"
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt >&2; fail "$cmd: not one line"; }
	expect_one_line_error vmtrace-record "$msg"
	cmp -s loop.vmt none.vmt || fail "$cmd: the previous none.vmt changed"
	[ -z "$(ls none.vmt?* 2>/dev/null)" ] || fail "$cmd: left $(ls none.vmt?*)"
done

# an executable file without "#!": run by /bin/sh, as execvp(3) (and env, nice) would run
# it, its exit status passed on; not "Exec format error"
printf 'exit 7\n' >noshebang
chmod 755 noshebang
rec -o nosb.vmt -- ./noshebang
expect_rc 7 "an executable without #!"
! grep -q "Exec format" err.txt || { cat err.txt >&2; fail "./noshebang: not run by /bin/sh"; }
env ./noshebang
[ $? = 7 ] || fail "env ./noshebang does not exit 7 here: the check above proves nothing"

# bad command lines
for args in "--" "-s 1 -- true" "true" "--cleanup -- true"; do
	# shellcheck disable=SC2086
	rec -o bad.vmt $args
	expect_rc 64 "vmtrace-record $args"
	[ "$(wc -l <err.txt)" -le 2 ] || { cat err.txt >&2; fail "$args: more than one line"; }
	[ ! -e bad.vmt ] || fail "$args: a file was written"
done
finish
