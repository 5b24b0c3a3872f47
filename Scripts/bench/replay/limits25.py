"""Issue 25's replay bars, the runs taking turns (best of `runs`), output to
/dev/null: unkeyed `--debounce 300ms` against `wc -l`, keyed `--debounce
300ms --key-field 2` against the unkeyed run, both also with another build
(`--compare-pace`, the one before a change), and the unkeyed run's peak RSS
(`/usr/bin/time -f %M`) and 1M pending keys' bytes per key. `measure` prints
one table and returns the targets as (name, met)."""

import os

from bench import data, report
from bench.replay.memory import PENDING_KEYS
from bench.timing import fastest, run_once, take_turns

DEBOUNCE = ["--replay", "--debounce", "300ms"]


def commands(pace, compare_pace):
    rows = [("wc -l", ["wc", "-l"])]
    for name, binary in (("pace", pace), ("compared pace", compare_pace)):
        if binary:
            rows += [(f"{name} --debounce 300ms", [binary, *DEBOUNCE]),
                     (f"{name} --debounce 300ms --key-field 2", [binary, *DEBOUNCE, "--key-field", "2"])]
    return rows


def pending_bytes(session, binary):
    """Bytes per pending key beyond its line: 1M keys each holding a
    debounced line at the end, against one key (as memory.py measures)."""
    pending = session.path("pending25.log")
    if not os.path.exists(pending):
        data.generate_pending_keys(pending, PENDING_KEYS)
    line = os.path.getsize(pending) / PENDING_KEYS - 1
    err = session.path("pending25.err")
    one = run_once([binary, "--replay", "--debounce", "1h"], pending, os.devnull, err)
    many = run_once([binary, "--replay", "--debounce", "1h", "--key-field", "2"], pending, os.devnull, err)
    return (many.rss_kb - one.rss_kb) * 1024 / PENDING_KEYS - line


def measure(session, pace, compare_pace=None):
    taken = take_turns(commands(pace, compare_pace), session.runs, session.logs["unix"], os.devnull,
                       session.path("limits25.err"))
    results = {}
    for label, runs in taken.items():
        results[label] = fastest(runs)
        if results[label].status != 0:
            session.fail(label, results[label])
    wc = results["wc -l"].seconds
    print()
    print(f"{session.lines} lines, best of {session.runs}, runs taking turns, output to /dev/null")
    print()
    lines = []
    for label, r in results.items():
        unkeyed = label.replace(" --key-field 2", "")
        over = f"{r.seconds / results[unkeyed].seconds:.2f}" if unkeyed != label else ""
        lines.append(f"| `{label}` | {r.seconds:.3f} s | {r.seconds / wc:.2f} | {over} | {r.rss_kb} KiB |")
    report.table(["command", "time", "x wc -l", "x unkeyed", "peak RSS"], lines)
    per_key = {name: pending_bytes(session, binary) for name, binary in (("pace", pace), ("compared pace", compare_pace))
               if binary}
    print()
    for name, value in per_key.items():
        print(f"{name}: {PENDING_KEYS} pending keys, {value:.0f} bytes per key beyond its line")
    unkeyed, keyed = results["pace --debounce 300ms"], results["pace --debounce 300ms --key-field 2"]
    return [("unkeyed --debounce 300ms <= 3x wc -l", unkeyed.seconds <= 3 * wc),
            ("keyed --debounce 300ms <= 1.6x unkeyed", keyed.seconds <= 1.6 * unkeyed.seconds),
            ("unkeyed --debounce 300ms peak RSS <= 10,000 KiB", unkeyed.rss_kb <= 10_000),
            ("1M pending keys <= 200 bytes per key beyond their lines", per_key["pace"] <= 200)]
