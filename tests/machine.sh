#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every test runs through this (tests/Makemodule.am): the machine's CPUs shared under
# make -j. A test that boots the nested KVM host (tests/kvmhost/run.sh) runs alone, for
# the emulated host's timing is what it checks: under make -j4 on 2 CPUs its VMs made 39
# to 47 rounds where 120 are usual, and their long exits became the emulator's stalls.
# So does record_flight_load.sh, which checks that the flight recorder loses no event
# under a flat-out loop: a capacity of the recorder, not of a machine other tests share
# (under make -j3 distcheck it lost 28 812 events in one run of two).
# The others share the lock; only flock(1) holds it (-o), so a child a test leaves
# behind holds nothing.
# usage: machine.sh COMMAND... (the test last)
for test; do :; done
case $test in
*/kvmhost.sh | */kvmhost_why.sh | */kvmhost_vm.sh | */kvmhost_flight.sh | */record_flight_load.sh) mode=-x ;;
*) mode=-s ;;
esac
# A directory, not a file: in a sticky /tmp (fs.protected_regular) a file another user
# made cannot be opened for writing, a directory can be opened for flock by anyone.
lock=${TMPDIR:-/tmp}/vmtrace-machine.lock.d
mkdir -p "$lock" 2>/dev/null
# Without flock(1) or with no lock directory to be had, the tests run unserialised, as
# they would without this script.
if command -v flock >/dev/null && [ -d "$lock" ] && [ -r "$lock" ]; then
	exec flock -o $mode "$lock" "$@"
fi
exec "$@"
