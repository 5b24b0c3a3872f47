"""Episodes (issue 22): `--throttle 1s --key-field 2 --resolve-after 1m`
against the same run without `--resolve-after`, taking turns (best of
`session.runs` each), output into /dev/null. `measure` prints a table and
returns the target as (name, met or None)."""

import os

from bench import report
from bench.timing import fastest, take_turns

BAR = 1.2


def measure(session, pace):
    base = [pace, "--replay", "--throttle", "1s", "--key-field", "2"]
    runs = [("pace --throttle 1s, keyed", base),
            ("pace --throttle 1s, keyed --resolve-after 1m", base + ["--resolve-after", "1m"])]
    taken = take_turns(runs, session.runs, session.logs["unix"], os.devnull, session.path("err-episodes"))
    rows = {}
    for label, results in taken.items():
        result = fastest(results)
        if result.status != 0:
            session.fail(label, result)
        rows[label] = result
    without = rows[runs[0][0]]
    print()
    print(f"{session.lines} lines (unix seconds), runs taking turns, best of {session.runs}, output into /dev/null")
    print()
    lines = [f"| {label} | {r.seconds:.3f} s | {session.lines / r.seconds / 1e6:.1f} M | {r.rss_kb / 1024:.1f} MB | "
             f"{r.seconds / without.seconds:.2f} |" for label, r in rows.items()]
    report.table(["command", "time", "lines/s", "peak RSS", "x without `--resolve-after`"], lines)
    with_episodes = rows[runs[1][0]]
    return [(f"--resolve-after 1m <= {BAR}x the same run without it",
             with_episodes.seconds <= BAR * without.seconds)]
