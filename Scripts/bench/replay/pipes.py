"""Output through a pipe (issue 25): `cat log | cat` against pace's pass-all
replay (`--throttle 1ns`) into `| cat`, and keyed `--throttle 1s` and
`--limit 10/1s` into `| cat`, each pace run with this build and, given
`--compare-pace`, with the build before (its figures beside the new ones).
Every command runs once per round, in turn, for `runs` rounds; the best
time of each is kept. The bars: pass-all at most 1.3 times `cat | cat`,
keyed `--limit 10/1s` at most 1.3 times keyed `--throttle 1s`, both into a
pipe. Each pace run's output through the pipe is checked to be byte for
byte the compared build's. `measure` prints a table and returns the
targets as (name, met or None)."""

import os
import sys

from bench import report
from bench.outputs import same_output
from bench.timing import fastest, run_once, take_turns

PASS_ALL = ["--throttle", "1ns"]
THROTTLE = ["--throttle", "1s", "--key-field", "2"]
LIMIT = ["--limit", "10/1s", "--key-field", "2"]
RUNS = [("pass-all", PASS_ALL), ("keyed --throttle 1s", THROTTLE), ("keyed --limit 10/1s", LIMIT)]


def piped(command):
    """`command` with its stdout into `| cat` (cat's own stdout is the
    caller's): a pipe made by the shell, as in real use."""
    return ["sh", "-c", '"$@" | cat', "sh", *command]


def measure(session, pace, compared=None):
    log = session.logs["unix"]
    err = session.path("pipes.err")
    builds = [("new", pace)] + ([("old", compared)] if compared else [])
    commands = [("cat | cat", piped(["cat"]))]
    for name, policy in RUNS:
        for build, binary in builds:
            commands.append((f"{build} {name}", piped([binary, "--replay", *policy])))
    print("  through a pipe: cat | cat, pace into | cat (interleaved)", file=sys.stderr)
    taken = take_turns(commands, session.runs, log, os.devnull, err)
    best = {label: fastest(results) for label, results in taken.items()}
    targets = ["pass-all into a pipe <= 1.3x cat | cat", "keyed --limit 10/1s into a pipe <= 1.3x keyed --throttle 1s"]
    for label, r in best.items():
        if r.status != 0:
            session.fail(f"through a pipe: {label}", r)
            return [(t, None) for t in targets]
    if compared:
        check_same(session, pace, compared, log, err)

    print()
    print(f"{session.lines} lines (unix seconds) into `| cat > /dev/null`, best of {session.runs}, interleaved")
    print()
    cat = best["cat | cat"].seconds
    rows = [f"| cat log \\| cat | {cat:.3f} s | | 1.00 | |"]
    for name, policy in RUNS:
        new = best[f"new {name}"].seconds
        old = best[f"old {name}"].seconds if compared else None
        before = f"{old:.3f} s" if old else ""
        before_ratio = f"{old / cat:.2f}" if old else ""
        rows.append(f"| pace --replay {' '.join(policy)} \\| cat | {new:.3f} s | {before} | {new / cat:.2f} | "
                    f"{before_ratio} |")
    report.table(["command", "time", "before", "x `cat \\| cat`", "before, x `cat \\| cat`"], rows)
    throttle, limit = best["new keyed --throttle 1s"].seconds, best["new keyed --limit 10/1s"].seconds
    line = f"keyed --limit 10/1s over keyed --throttle 1s, into a pipe: {limit / throttle:.2f}"
    if compared:
        line += (f" (before: {best['old keyed --limit 10/1s'].seconds / best['old keyed --throttle 1s'].seconds:.2f})")
    print()
    print(line)
    return [(targets[0], best["new pass-all"].seconds <= 1.3 * cat), (targets[1], limit <= 1.3 * throttle)]


def check_same(session, pace, compared, log, err):
    """Each run's bytes through the pipe, this build's against the compared one's."""
    for name, policy in RUNS:
        outs = []
        for build, binary in (("new", pace), ("old", compared)):
            out = session.path(f"pipes-{build}.out")
            r = run_once(piped([binary, "--replay", *policy]), log, out, err)
            if r.status != 0:
                session.fail(f"through a pipe, {build} {name}", r)
            outs.append(out)
        if not same_output(*outs):
            session.failures.append(f"through a pipe, {name}: this build's output differs from the compared build's")
        for out in outs:
            os.remove(out)
