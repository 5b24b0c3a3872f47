"""The awk baseline: what a shell user would write, with SPEC's semantics.
Times are integer microseconds (exact in a double up to 2^53), so the tie
rule (a timer due at T fires before an event at T) is exact. The generated
timestamps always have 6 fraction digits."""

import os

AWK_COMMON = r"""
function stamp(   a) {
    split($1, a, ".")
    t = a[1] * 1000000 + a[2]
    if (t < now) t = now          # the clock never runs backwards
    now = t
    return t
}
"""

AWK_DEBOUNCE = AWK_COMMON + r"""
$0 == "" { next }
{
    t = stamp()
    if (pending && due <= t) print line   # silence of exactly D counts
    line = $0; due = t + D; pending = 1
}
END { if (pending) print line }
"""

# Keyed: every key's timer due at or before an event fires first, all of them
# in order of due time, then of input order of the pending events. `next_due`
# may run early (a key whose timer moved later), never late; running early
# only costs a scan.
AWK_DEBOUNCE_KEYED = AWK_COMMON + r"""
BEGIN { next_due = 1e300 }
function fire(t,   k, n, i, j) {
    n = 0
    for (k in due) if (due[k] <= t) ready[++n] = k
    for (i = 2; i <= n; i++) {
        k = ready[i]
        for (j = i - 1; j >= 1 && (due[ready[j]] > due[k] || (due[ready[j]] == due[k] && seq[ready[j]] > seq[k])); j--)
            ready[j + 1] = ready[j]
        ready[j + 1] = k
    }
    for (i = 1; i <= n; i++) {
        k = ready[i]
        print line[k]
        delete line[k]; delete due[k]; delete seq[k]
    }
    next_due = 1e300
    for (k in due) if (due[k] < next_due) next_due = due[k]
}
$0 == "" { next }
{
    t = stamp()
    if (t >= next_due) fire(t)
    k = $kf
    line[k] = $0; due[k] = t + D; seq[k] = NR
    if (due[k] < next_due) next_due = due[k]
}
END { fire(1e300) }
"""

AWK_THROTTLE = AWK_COMMON + r"""
$0 == "" { next }
{
    t = stamp()
    if (!open || t >= end) { print; end = t + D; open = 1 }
}
"""

AWK_THROTTLE_KEYED = AWK_COMMON + r"""
$0 == "" { next }
{
    t = stamp()
    k = $kf
    if (!(k in end) || t >= end[k]) { print; end[k] = t + D }
}
"""


PROGRAMS = [("debounce", AWK_DEBOUNCE), ("debounce-keyed", AWK_DEBOUNCE_KEYED),
            ("throttle", AWK_THROTTLE), ("throttle-keyed", AWK_THROTTLE_KEYED)]


def write_programs(directory):
    """Writes each program to a file in `directory`: {name: path}."""
    paths = {}
    for name, text in PROGRAMS:
        paths[name] = os.path.join(directory, f"{name}.awk")
        with open(paths[name], "w") as f:
            f.write(text)
    return paths
