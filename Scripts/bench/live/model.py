"""SPEC's semantics per key, written here independently of pace: the ideal
emission time of every line, from the times the lines were actually sent.
And the scenarios: one per policy, each a seeded schedule of bursts whose
events keep a margin from their key's timer and window boundaries, so that
the microseconds a pipe adds cannot change which side of a boundary an event
falls on."""

import copy
import random

D_MS = 50
MS = 1_000_000
MARGIN = 5 * MS           # no event within 5 ms of a boundary of its key

# MARK: - The model (SPEC's semantics, per key)


class Ambiguous(Exception):
    """An event too close to a boundary of its key."""


class Model:
    """Ideal emissions: feed (time, key, line) in order, then finish()."""

    def __init__(self, policy, window, max_wait=None):
        self.policy = policy
        self.d = window
        self.m = max_wait
        self.keys = {}          # key -> state dict
        self.emitted = []       # (time, line)

    def _boundary(self, s):
        if self.policy == "debounce":
            return s.get("deadline")
        return s.get("end")

    def _fire(self, s, due):
        if self.policy == "debounce":
            self.emitted.append((due, s["line"]))
            s.clear()
        elif self.policy == "throttle-last":
            if s.get("line") is not None:
                self.emitted.append((due, s["line"]))
                s["line"] = None
                s["end"] = due + self.d
            else:
                s.clear()
        else:  # leading, throttle: the window just ends
            s.clear()

    def _advance(self, s, t):
        while True:
            due = self._boundary(s)
            if due is None or due > t:
                return
            self._fire(s, due)

    def event(self, t, key, line, margin=0):
        s = self.keys.setdefault(key, {})
        # Fire what is due; every boundary crossed (and the next one) must be
        # clear of t by the margin.
        while True:
            due = self._boundary(s)
            if due is not None and abs(t - due) < margin:
                raise Ambiguous
            if due is None or due > t:
                break
            self._fire(s, due)
        p = self.policy
        if p == "debounce":
            start = s.get("start", t)
            deadline = t + self.d
            if self.m is not None:
                deadline = min(deadline, start + self.m)
            s.update(line=line, start=start, deadline=deadline)
        elif p == "leading":
            if s.get("end") is None:
                self.emitted.append((t, line))
            s["end"] = t + self.d
        elif p == "throttle":
            if s.get("end") is None:
                self.emitted.append((t, line))
                s["end"] = t + self.d
        elif p == "throttle-last":
            if s.get("end") is None:
                self.emitted.append((t, line))
                s["end"] = t + self.d
                s["line"] = None
            else:
                s["line"] = line

    def finish(self):
        for s in self.keys.values():
            self._advance(s, float("inf"))
        return self.emitted


# MARK: - Scenarios


class Scenario:
    def __init__(self, name, flags, policy, max_wait, keys, pattern, seed):
        self.name = name
        self.flags = flags
        self.policy = policy
        self.max_wait = max_wait
        self.keyed = len(keys) > 1
        self.schedule = self._build(keys, pattern, seed)

    def model(self):
        return Model(self.policy, D_MS * MS, self.max_wait)

    def _build(self, keys, pattern, seed):
        """[(offset ns, key, line)]: gaps drawn per the pattern, each event
        redrawn until it keeps the margin from its key's boundaries."""
        rng = random.Random(seed)
        model = self.model()
        schedule = []
        t = 0
        for burst_length, gap_range, pause_range in pattern:
            for i in range(burst_length):
                low, high = gap_range if i > 0 else pause_range
                for _ in range(1000):
                    candidate = t + rng.randint(low * 1000, high * 1000) * 1000 if schedule else 0
                    key = rng.choice(keys)
                    trial = copy.deepcopy(model)
                    try:
                        trial.event(candidate, key, "", margin=MARGIN)
                    except Ambiguous:
                        continue
                    break
                else:
                    raise SystemExit(f"{self.name}: cannot place an event with the margin")
                model = trial
                t = candidate
                schedule.append((t, key, f"{key} {len(schedule):05d}"))
        return schedule


def bursts(count, length, gap, pause, seed):
    rng = random.Random(seed)
    return [(rng.randint(*length), gap, pause) for _ in range(count)]


def scenarios():
    d = f"{D_MS}ms"
    quiet = (70, 160)       # silence between bursts, > D
    return [
        Scenario("debounce", ["--debounce", d], "debounce", None, ["x"],
                 bursts(24, (1, 6), (3, 40), quiet, 1), 11),
        Scenario("leading", ["--leading", d], "leading", None, ["x"],
                 bursts(24, (1, 6), (3, 40), quiet, 2), 12),
        Scenario("throttle", ["--throttle", d], "throttle", None, ["x"],
                 bursts(8, (10, 30), (4, 20), quiet, 3), 13),
        Scenario("throttle-last", ["--throttle-last", d], "throttle-last", None, ["x"],
                 bursts(8, (10, 30), (4, 20), quiet, 4), 14),
        Scenario("debounce max-wait", ["--debounce", d, "--max-wait", "120ms"], "debounce", 120 * MS, ["x"],
                 bursts(6, (20, 40), (4, 30), quiet, 5), 15),
        Scenario("debounce keyed", ["--debounce", d, "--key-field", "1"], "debounce", None, ["a", "b", "c"],
                 bursts(16, (3, 10), (2, 30), quiet, 6), 16),
    ]
