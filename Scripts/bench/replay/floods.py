"""Issue 23's speed bars, each run beside its base, taking turns (best of
`runs`), output to /dev/null: `--key-field '5-~'` against `5-` (and `3-~`
against `3-`, with their distinct keys), `--exempt` and `--then-every`
against the same throttle without them, and `--count-field` against
`--count` on the JSON copy. `measure` prints one table and returns the
targets as (name, met)."""

import os
import re

from bench import report
from bench.timing import fastest, run_once, take_turns

# (label, command tail, log variant, the label of its base, the bar: at most
# this many times the base's time).
ROWS = [
    ("--key-field 5-", ["--throttle", "1s", "--key-field", "5-"], "unix", None, None),
    ("--key-field '5-~'", ["--throttle", "1s", "--key-field", "5-~"], "unix", "--key-field 5-", 1 / 0.67),
    ("--key-field 3-", ["--throttle", "1s", "--key-field", "3-"], "unix", None, None),
    ("--key-field '3-~'", ["--throttle", "1s", "--key-field", "3-~"], "unix", "--key-field 3-", None),
    ("--throttle 1s --key-field 2", ["--throttle", "1s", "--key-field", "2"], "unix", None, None),
    ("... --exempt 5=ERROR", ["--throttle", "1s", "--key-field", "2", "--exempt", "5=ERROR"], "unix",
     "--throttle 1s --key-field 2", 1.2),
    ("... --exempt 5=status=500 (5% exempt)",
     ["--throttle", "1s", "--key-field", "2", "--exempt", "5=status=500"], "unix", "--throttle 1s --key-field 2", None),
    ("... --exempt 3=GET (6/7 exempt)", ["--throttle", "1s", "--key-field", "2", "--exempt", "3=GET"], "unix",
     "--throttle 1s --key-field 2", None),
    ("... --then-every 100", ["--throttle", "1s", "--key-field", "2", "--then-every", "100"], "unix",
     "--throttle 1s --key-field 2", 1.1),
    ("JSON --throttle 1s --key-field host --count", ["--throttle", "1s", "--key-field", "host", "--time-field", "ts",
                                                    "--count"], "json", None, None),
    ("JSON ... --count-field n", ["--throttle", "1s", "--key-field", "host", "--time-field", "ts",
                                  "--count-field", "n"], "json", "JSON --throttle 1s --key-field host --count", 1.1),
]


def distinct_keys(session, pace, tail):
    """`--stats`' distinct keys of a run."""
    err = session.path("floods-keys.err")
    run_once([pace, "--replay", *tail, "--stats"], session.logs["unix"], os.devnull, err)
    with open(err) as f:
        found = re.search(r"distinct keys:\s+(.+)", f.read())
    return found.group(1).strip() if found else "?"


def measure(session, pace):
    results = {}
    for variant in ("unix", "json"):
        commands = [(label, [pace, "--replay", *tail]) for label, tail, v, _, _ in ROWS if v == variant]
        taken = take_turns(commands, session.runs, session.logs[variant], os.devnull, session.path("floods.err"))
        for label, runs in taken.items():
            results[label] = fastest(runs)
            if results[label].status != 0:
                session.fail(label, results[label])
    keys = {label: distinct_keys(session, pace, tail) for label, tail, _, _, _ in ROWS if "key-field 3-" in label
            or "key-field 5-" in label or "'3-~'" in label or "'5-~'" in label}
    print()
    print(f"{session.lines} lines, best of {session.runs}, runs taking turns, output to /dev/null")
    print()
    lines, targets = [], []
    for label, _, _, base, bar in ROWS:
        r = results[label]
        ratio = f"{r.seconds / results[base].seconds:.2f}" if base else ""
        lines.append(f"| `{label}` | {r.seconds:.3f} s | {ratio} | {keys.get(label, '')} |")
        if bar:
            targets.append((f"{label} <= {bar:.2f}x {base}", r.seconds <= bar * results[base].seconds))
    report.table(["command", "time", "x its base", "distinct keys"], lines)
    return targets
