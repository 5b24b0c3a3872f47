"""--progress against the same replay without it (issue 24: within 3%).
Both run with stderr on a pseudo-terminal of their own (so that pace sees
a terminal and --progress draws), stdout to /dev/null, the log as FILE (a
regular file: the percent read and the time left are drawn too). The runs
take turns, best of at least 5 each. The log should be big enough that
the plain replay takes over a second (--lines 10000000 or so)."""

import os
import pty
import subprocess
import threading
import time

PLAIN = "pace --replay --throttle 1s, keyed, FILE, stderr a terminal"
WATCHED = PLAIN + " --progress"


def on_terminal(command):
    """Runs `command` with stderr on a new pty drained by a thread: its wall
    time, exit status, and how many bytes it wrote to the terminal."""
    master, slave = pty.openpty()
    written = [0]

    def drain():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            written[0] += len(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        status = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=null, stderr=slave).returncode
        seconds = time.perf_counter() - start
    os.close(slave)
    reader.join(timeout=5)
    os.close(master)
    return seconds, status, written[0]


def measure(session, pace):
    base = [pace, "--replay", "--throttle", "1s", "--key-field", "2", session.logs["unix"]]
    runs = {PLAIN: [], WATCHED: []}
    drawn = 0
    for _ in range(max(session.runs, 5)):
        for label, command in ((PLAIN, base), (WATCHED, base + ["--progress"])):
            seconds, status, written = on_terminal(command)
            if status != 0:
                session.failures.append(f"{label}: exit {status}")
            runs[label].append(seconds)
            if label == WATCHED:
                drawn = written
    plain, watched = min(runs[PLAIN]), min(runs[WATCHED])
    print()
    print(f"{session.lines} lines ({session.sizes['unix'] / 1e6:.0f} MB), runs taking turns, best of {len(runs[PLAIN])}")
    print()
    print("| run | time | lines/s | vs plain |")
    print("| --- | --- | --- | --- |")
    for label, seconds in ((PLAIN, plain), (WATCHED, watched)):
        print(f"| {label} | {seconds:.3f} s | {session.lines / seconds / 1e6:.1f} M | {seconds / plain:.3f} |")
    print()
    print(f"--progress wrote {drawn} bytes to the terminal in its last run")
    if drawn == 0:
        session.failures.append("--progress drew nothing on the terminal")
    return [("--progress within 3% of plain replay (plain over 1 s)", watched <= plain * 1.03 if plain > 1 else None)]
