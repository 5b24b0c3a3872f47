"""The count policies: `--limit 10/1s` against `--throttle 1s` (keyed and
unkeyed, with `--limit 1/1s` checked to print what `--throttle 1s` prints),
and `--rate` holding a backlog of 100k and 1M lines (memory per waiting
line, and whether time grows linearly). `measure` prints two tables and
returns the targets as (name, met or None)."""

import os

from bench import data, report
from bench.outputs import line_count, same_output
from bench.timing import run_once

KEYINGS = [("", []), (", keyed", ["--key-field", "2"])]
BACKLOGS = (100_000, 1_000_000)
RATE = "1000000000/s"


def measure(session, pace):
    return limit_rows(session, pace) + rate_backlog(session, pace)


def limit_rows(session, pace):
    rows = {}
    for keyed, key in KEYINGS:
        rows[f"throttle{keyed}"] = session.timed(f"pace --throttle 1s{keyed}",
                                                 [pace, "--replay", "--throttle", "1s", *key], session.logs["unix"])
        rows[f"limit{keyed}"] = session.timed(f"pace --limit 10/1s{keyed}",
                                              [pace, "--replay", "--limit", "10/1s", *key], session.logs["unix"])
        # SPEC: --limit 1/D is exactly --throttle D.
        outputs = []
        for policy in (["--throttle", "1s"], ["--limit", "1/1s"]):
            out = session.path(f"limits-{policy[0][2:]}{keyed.replace(', ', '-')}.out")
            run_once([pace, "--replay", *policy, *key], session.logs["unix"], out, session.path("limits.err"))
            outputs.append(out)
        if not same_output(*outputs):
            session.failures.append(f"'pace --limit 1/1s{keyed}' and 'pace --throttle 1s{keyed}' printed different lines")

    print()
    print(f"{session.lines} lines (unix seconds), best of {session.runs}")
    print()
    lines = []
    for keyed, _ in KEYINGS:
        throttle = rows[f"throttle{keyed}"]
        for name, label in [(f"throttle{keyed}", f"pace --throttle 1s{keyed}"),
                            (f"limit{keyed}", f"pace --limit 10/1s{keyed}")]:
            r = rows[name]
            lines.append(f"| {label} | {r.seconds:.3f} s | {session.lines / r.seconds / 1e6:.1f} M | "
                         f"{r.rss_kb / 1024:.1f} MB | {r.seconds / throttle.seconds:.2f} |")
    report.table(["command", "time", "lines/s", "peak RSS", "x `--throttle 1s` time"], lines)
    return [(f"--limit 10/1s{keyed} <= 1.2x --throttle 1s{keyed}",
             rows[f"limit{keyed}"].seconds <= 1.2 * rows[f"throttle{keyed}"].seconds) for keyed, _ in KEYINGS]


def rate_backlog(session, pace):
    """--rate: a backlog of (count - 1) lines, let out at 10^9 per second so
    the virtual clock's run-on is all the work there is."""
    target = "--rate 1M backlog <= 12x 100k"
    probe = session.path("rate-probe.log")
    data.generate_backlog(probe, 3)
    r = run_once([pace, "--replay", "--rate", RATE], probe, os.devnull, session.path("rate-probe.err"))
    if r.status != 0:
        print()
        print(f"--rate backlog: n/a (this build refuses --rate: {r.stderr.splitlines()[0] if r.stderr else r.status})")
        return [(target, None)]
    backlog = {count: backlog_run(session, pace, count) for count in BACKLOGS}
    small, large = backlog[BACKLOGS[0]], backlog[BACKLOGS[1]]
    per_line = (large.rss_kb - small.rss_kb) * 1024 / (BACKLOGS[1] - BACKLOGS[0])
    print()
    report.table(["--rate 1000000000/s, lines at one instant", "time", "peak RSS"],
                 [f"| backlog of {count - 1} | {r.seconds:.3f} s | {r.rss_kb / 1024:.1f} MB |"
                  for count, r in backlog.items()] +
                 [f"| memory per waiting line (difference / 900000) | | {per_line:.0f} bytes |",
                  f"| time, 1M / 100k | {large.seconds / small.seconds:.1f}x | |"])
    return [(target, large.seconds <= 12 * small.seconds)]


def backlog_run(session, pace, count):
    """`count` lines at one instant through --rate: all come out, and
    --stats reports a peak backlog of all but the first."""
    path = session.path(f"backlog-{count}.log")
    data.generate_backlog(path, count)
    out = session.path(f"backlog-{count}.out")
    r = session.timed(f"pace --rate, backlog of {count}", [pace, "--replay", "--rate", RATE, "--stats"], path, out)
    if r.status == 0:
        if line_count(out) != count:
            session.failures.append(f"--rate backlog {count}: {line_count(out)} lines out, expected {count}")
        if f"peak backlog:        {count - 1}" not in r.stderr:
            session.failures.append(f"--rate backlog {count}: --stats does not report a peak backlog of {count - 1}")
    os.remove(path)
    return r
