"""The benchmark's synthetic logs. Every generator is seeded or regular, so
two runs (and two scripts: bench-replay times pace on the same log that
callgrind-replay counts instructions on) read the same bytes."""

import datetime
import os
import random

# The window every run uses, and the same in microseconds for awk.
WINDOW = "100ms"
WINDOW_US = 100_000
# 2026-11-29T12:00:00Z, the first event's second.
EPOCH_START = 1_795_953_600
KEYS = 16
SEED = 20261129
# Lines gathered before one write: fewer, larger writes.
CHUNK = 65536


def event_times(rng, count):
    """Yields `count` non-decreasing times in microseconds: bursts of events a
    few milliseconds apart, separated by pauses from well under the window to
    seconds. Some gaps are exactly zero (same instant) and some pauses exactly
    the window (SPEC: silence of exactly D counts as silence)."""
    t = EPOCH_START * 1_000_000 + 569
    left_in_burst = 0
    for _ in range(count):
        yield t
        if left_in_burst == 0:
            left_in_burst = 1 + int(rng.expovariate(1 / 30))
            r = rng.random()
            if r < 0.10:
                t += WINDOW_US               # exactly the window: a tie
            elif r < 0.30:
                t += rng.randrange(50_000, WINDOW_US)  # just too short
            else:
                t += rng.randrange(WINDOW_US + 1, 3_000_000)
        else:
            left_in_burst -= 1
            r = rng.random()
            t += 0 if r < 0.05 else int(rng.expovariate(1 / 3_000))


def key_weights():
    """16 skewed keys (Zipf, s = 1): host00 is 16 times as busy as host15."""
    return [1 / (k + 1) for k in range(KEYS)]


def write_lines(path, lines):
    """Writes an iterable of text lines to `path`, CHUNK lines at a time."""
    with open(path, "w", buffering=1 << 20) as f:
        chunk = []
        for line in lines:
            chunk.append(line)
            if len(chunk) == CHUNK:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))


def generate(directory, count):
    """Writes the unix, iso8601, syslog and JSON variants of the same `count`
    events; returns their paths."""
    rng = random.Random(SEED)
    paths = {name: os.path.join(directory, f"{name}.log") for name in ("unix", "iso8601", "syslog", "json")}
    files = {name: open(path, "w", buffering=1 << 20) for name, path in paths.items()}
    keys = rng.choices(range(KEYS), weights=key_weights(), k=count)
    statuses = ["200"] * 18 + ["404", "500"]
    last_second = None
    iso_prefix = syslog_prefix = ""
    chunk = {name: [] for name in files}
    for n, t in enumerate(event_times(rng, count)):
        second, micros = divmod(t, 1_000_000)
        if second != last_second:
            last_second = second
            d = datetime.datetime.fromtimestamp(second, datetime.timezone.utc)
            iso_prefix = d.strftime("%Y-%m-%dT%H:%M:%S")
            syslog_prefix = d.strftime("%b ") + f"{d.day:2d}" + d.strftime(" %H:%M:%S")
        method = "GET" if n % 7 else "POST"
        status = statuses[n % 20]
        rest = f" host{keys[n]:02d} {method} /api/v1/items/{n % 1_000_000:06d} status={status}\n"
        chunk["unix"].append(f"{second}.{micros:06d}{rest}")
        level = "error" if status == "500" else "warn" if status == "404" else "info"
        chunk["json"].append(f'{{"ts":{second}.{micros:06d},"level":"{level}","host":"host{keys[n]:02d}",'
                             f'"msg":"{method} /api/v1/items/{n % 1_000_000:06d} status={status}"}}\n')
        chunk["iso8601"].append(f"{iso_prefix}.{micros:06d}Z{rest}")
        chunk["syslog"].append(f"{syslog_prefix}.{micros:06d}{rest}")
        if len(chunk["unix"]) == CHUNK:
            for name, f in files.items():
                f.write("".join(chunk[name]))
                chunk[name].clear()
    for name, f in files.items():
        f.write("".join(chunk[name]))
        f.close()
    return paths


def generate_unix(path, count, seed):
    """A unix-seconds log of `count` lines (the 10M-line memory run)."""
    rng = random.Random(seed)
    keys = rng.choices(range(KEYS), weights=key_weights(), k=min(count, 1 << 20))

    def lines():
        for n, t in enumerate(event_times(rng, count)):
            second, micros = divmod(t, 1_000_000)
            yield f"{second}.{micros:06d} host{keys[n & 0xFFFFF]:02d} GET /api/v1/items/{n % 1_000_000:06d} status=200\n"
    write_lines(path, lines())


def generate_backlog(path, count):
    """`count` lines at one instant, on one key: `--rate` must hold all but
    the first back, then let them out one per token."""
    with open(path, "w", buffering=1 << 20) as f:
        line = f"{EPOCH_START}.000000 host00 GET /api/v1/items/000000 status=200\n"
        for _ in range(count // CHUNK):
            f.write(line * CHUNK)
        f.write(line * (count % CHUNK))


def generate_distinct_keys(path, count):
    """`count` events, each with a key of its own, 100 us apart: about 1000
    keys are active within any one window, whatever `count` is."""
    t = EPOCH_START * 1_000_000

    def lines():
        for n in range(count):
            second, micros = divmod(t + 100 * n, 1_000_000)
            yield f"{second}.{micros:06d} key{n:08d} GET /api/v1/items status=200\n"
    write_lines(path, lines())


def generate_pending_keys(path, count):
    """`count` events, each with a key of its own, 1000 to a second (three
    fraction digits): under `--debounce 1h` every key still holds its line
    when the log ends."""
    write_lines(path, (f"{EPOCH_START + i // 1000}.{i % 1000:03d} key{i:07d} GET /index.html 200\n"
                       for i in range(count)))


def base36(n):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def generate_stats_keys(path, count):
    """`count` events, each with a key of its own (base 36), 10,000 to a
    second: short lines (18 bytes), so that 20M of them are 360 MB."""
    write_lines(path, (f"{EPOCH_START + n // 10_000} k{base36(n)}\n" for n in range(count)))
