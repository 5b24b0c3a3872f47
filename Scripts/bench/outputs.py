"""Comparing what two runs printed: byte for byte, or event for event when
the two logs wrote the same events with other timestamps."""


def item_numbers(path):
    """The event of each output line (its item number and key), whatever the
    timestamp's format: how the iso8601/syslog/JSON outputs are compared with
    the unix one."""
    def item(line):
        if line.startswith(b"{"):
            host = line.index(b'"host":"') + 8
            return b" " + line[host:line.index(b'"', host)] + b" " + line[line.index(b'"msg":"') + 7:-3] + b"\n"
        return line[line.index(b" host"):]
    with open(path, "rb") as f:
        return [item(line) for line in f]


def same_output(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def line_count(path):
    with open(path, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
