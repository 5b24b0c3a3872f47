"""The reference: the same policies as an asyncio filter (one call_at timer
per key on the event loop), what a Python programmer would write. It runs as
`Scripts/bench-live --reference POLICY...`, side by side with pace."""

import argparse
import asyncio
import sys

POLICIES = ("debounce", "leading", "throttle", "throttle-last")


def parse(arguments):
    parser = argparse.ArgumentParser(prog="bench-live --reference")
    group = parser.add_mutually_exclusive_group(required=True)
    for name in POLICIES:
        group.add_argument(f"--{name}", dest="policy", action="store_const", const=name)
    parser.add_argument("window")
    parser.add_argument("--max-wait")
    parser.add_argument("--key-field", type=int)
    return parser.parse_args(arguments)


def seconds(text):
    assert text.endswith("ms"), "the reference knows milliseconds only"
    return float(text[:-2]) / 1000


def emit(line):
    out = sys.stdout.buffer
    out.write(line + b"\n")
    out.flush()


class Reference:
    """Every key's state: dict(handle, line, start, end)."""

    def __init__(self, args, loop):
        self.policy = args.policy
        self.key_field = args.key_field
        self.d = seconds(args.window)
        self.m = seconds(args.max_wait) if args.max_wait else None
        self.loop = loop
        self.keys = {}

    def fire(self, key):
        s = self.keys[key]
        s["handle"] = None
        if self.policy == "debounce":
            emit(s["line"])
            del self.keys[key]
        elif self.policy == "throttle-last" and s.get("line") is not None:
            emit(s["line"])
            s["line"] = None
            s["end"] = s["end"] + self.d
            s["handle"] = self.loop.call_at(s["end"], self.fire, key)
        else:
            del self.keys[key]

    def event(self, t, line):
        fields = line.split()
        kf = self.key_field
        key = fields[kf - 1] if kf and len(fields) >= kf else b""
        s = self.keys.setdefault(key, {"handle": None})
        # A timer already due fires first (the loop may not have run it).
        while s.get("handle") is not None and s["handle"].when() <= t:
            s["handle"].cancel()
            self.fire(key)
            s = self.keys.setdefault(key, {"handle": None})
        d, call_at = self.d, self.loop.call_at
        if self.policy == "debounce":
            start = s.get("start", t)
            deadline = t + d if self.m is None else min(t + d, start + self.m)
            if s["handle"] is not None:
                s["handle"].cancel()
            s.update(line=line, start=start, handle=call_at(deadline, self.fire, key))
        elif self.policy in ("leading", "throttle"):
            if s["handle"] is None:
                emit(line)
            if s["handle"] is None or self.policy == "leading":
                if s["handle"] is not None:
                    s["handle"].cancel()
                s["handle"] = call_at(t + d, self.fire, key)
        else:  # throttle-last
            if s["handle"] is None:
                emit(line)
                s.update(line=None, end=t + d, handle=call_at(t + d, self.fire, key))
            else:
                s["line"] = line

    def finish(self):
        """End of input: pending lines at once, in deadline order."""
        for key, s in sorted(self.keys.items(), key=lambda kv: kv[1]["handle"].when() if kv[1]["handle"] else 0):
            if s.get("line") is not None:
                emit(s["line"])


async def filter_stdin(args):
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    reference = Reference(args, loop)
    while True:
        raw = await reader.readline()
        if not raw:
            break
        t = loop.time()
        reference.event(t, raw[:-1] if raw.endswith(b"\n") else raw)
    reference.finish()


def main(arguments):
    asyncio.run(filter_stdin(parse(arguments)))
