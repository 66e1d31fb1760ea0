#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run a command on a new pseudo-terminal, as a user's terminal would be (tests only).

    ptyrun.py [--stderr FILE] OUT COLS ROWS [AFTER_S COLS2 ROWS2] -- COMMAND...

COMMAND's standard output (and standard input and error, unless --stderr sends its
standard error to FILE and its input is /dev/null) is the terminal, COLS x ROWS, resized to
COLS2 x ROWS2 AFTER_S seconds in; what reached the terminal is written to OUT. The exit
status is COMMAND's; a COMMAND silent for 60 s is killed (a hang fails, never waits).
"""
import fcntl, os, select, struct, subprocess, sys, termios, time

args = sys.argv[1:]
err = None
if args[0] == "--stderr":
    err, args = args[1], args[2:]
sep = args.index("--")
out, size, cmd = args[0], [float(a) for a in args[1:sep]], args[sep + 1:]


def winsize(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", int(rows), int(cols), 0, 0))


master, slave = os.openpty()
winsize(slave, size[0], size[1])
if err:
    with open(err, "wb") as e:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=e)
else:
    p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
start, data = time.monotonic(), b""
last = start
while True:
    if time.monotonic() - last > 60:
        p.kill()
        break
    if len(size) == 5 and time.monotonic() - start >= size[2]:
        winsize(master, size[3], size[4])
        size = size[3:]
    if not select.select([master], [], [], 0.05)[0]:
        continue
    try:
        b = os.read(master, 65536)
    except OSError:  # EIO: the last writer closed the terminal
        break
    if not b:
        break
    data += b
    last = time.monotonic()
open(out, "wb").write(data)
sys.exit(p.wait())
