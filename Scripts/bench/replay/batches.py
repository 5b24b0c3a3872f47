"""`--batch` (issue 22): `--throttle-last 1s --batch 1000 --key-field 2`
against `--throttle-last 1s --key-field 2`, runs interleaved (one of each in
turn, best of `runs` each), output to /dev/null. The batch run writes every
line, about 3 times as many as the other; the bar is 1.3 times its time.
Also checks that the batch run wrote every line. `measure` prints a table and
returns the target as (name, met or None)."""

import os

from bench import report
from bench.outputs import line_count
from bench.timing import fastest, run_once

PLAIN = ["--throttle-last", "1s", "--key-field", "2"]
BATCHED = PLAIN + ["--batch", "1000"]


def measure(session, pace):
    log = session.logs["unix"]
    err = session.path("batches.err")
    runs = {"plain": [], "batched": []}
    print("  pace --throttle-last 1s --key-field 2, with and without --batch 1000 (interleaved)")
    for _ in range(session.runs):
        for name, policy in (("plain", PLAIN), ("batched", BATCHED)):
            runs[name].append(run_once([pace, "--replay", *policy], log, os.devnull, err))
    plain, batched = fastest(runs["plain"]), fastest(runs["batched"])
    target = "--throttle-last 1s --batch 1000 --key-field 2 <= 1.3x without --batch"
    for name, r in (("plain", plain), ("batched", batched)):
        if r.status != 0:
            session.fail(f"pace {' '.join(PLAIN if name == 'plain' else BATCHED)}", r)
            return [(target, None)]
    counts = {}
    for name, policy in (("plain", PLAIN), ("batched", BATCHED)):
        out = session.path(f"batches-{name}.out")
        run_once([pace, "--replay", *policy], log, out, err)
        counts[name] = line_count(out)
        os.remove(out)
    if counts["batched"] != session.lines:
        session.failures.append(f"--batch 1000 wrote {counts['batched']} lines of {session.lines}")
    print()
    print(f"{session.lines} lines (unix seconds), best of {session.runs}, interleaved")
    print()
    rows = []
    for name, policy, r in (("plain", PLAIN, plain), ("batched", BATCHED, batched)):
        rows.append(f"| pace --replay {' '.join(policy)} | {r.seconds:.3f} s | {counts[name]} | "
                    f"{r.rss_kb / 1024:.1f} MB | {r.seconds / plain.seconds:.2f} |")
    report.table(["command", "time", "lines out", "peak RSS", "x without --batch"], rows)
    return [(target, batched.seconds <= 1.3 * plain.seconds)]
