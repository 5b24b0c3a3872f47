// --progress in a real pseudo-terminal: Python's pty module gives pace a
// terminal for stderr (and, in one test, stdout), and a small terminal
// model turns what pace writes into what a person sees: the rows scrolled
// by and the row under the cursor. The tests wait on what the terminal
// shows (the status text appearing), never on time.

import Foundation
import Testing

/// The harness: runs pace with stderr (and stdout if asked) on a pty of
/// `cols` columns, carries out the steps, and prints what the terminal
/// showed as JSON. Steps: write text to stdin, close stdin, wait until the
/// cursor's row matches a regex (and keep it as a snapshot), wait until N
/// rows have scrolled by, write a line to a FIFO (a gate a command waits
/// on), resize (and SIGWINCH), wait for the exit. With "ctty", the terminal
/// is the process's controlling terminal (so that /dev/tty is it).
private let harness = #"""
import json, os, pty, re, select, signal, struct, subprocess, sys, time, fcntl, termios
spec = json.loads(sys.argv[1])
master, slave = os.openpty()
def set_cols(cols):
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
set_cols(spec["cols"])
stdout = slave if spec["stdout"] == "tty" else open(spec["stdout"], "wb")
stderr = slave if spec["stderr"] == "tty" else open(spec["stderr"], "wb")
ctty = (lambda: fcntl.ioctl(2, termios.TIOCSCTTY, 0)) if spec.get("ctty") else None
proc = subprocess.Popen(spec["argv"], stdin=subprocess.PIPE, stdout=stdout, stderr=stderr, start_new_session=True,
                        preexec_fn=ctty)
os.close(slave) if spec["stdout"] == "tty" or spec["stderr"] == "tty" else None
rows, row, col, raw = [], [], 0, b""
def feed(data):
    global row, col, raw
    raw += data
    i = 0
    while i < len(data):
        b = data[i]
        if b == 0x0d: col = 0
        elif b == 0x0a: rows.append("".join(row)); row = []; col = 0
        elif b == 0x1b and data[i+1:i+3] == b"[K": del row[col:]; i += 2
        elif b >= 0x20:
            if col >= spec["cols"]: rows.append("".join(row)); row = []; col = 0
            while len(row) <= col: row.append(" ")
            row[col] = chr(b); col += 1
        i += 1
def pump(timeout):
    r, _, _ = select.select([master], [], [], timeout)
    if not r: return False
    try: data = os.read(master, 65536)
    except OSError: return None
    if not data: return None
    feed(data); return True
snapshots = []
for step in spec["steps"]:
    kind = step[0]
    if kind == "write": proc.stdin.write(step[1].encode()); proc.stdin.flush()
    elif kind == "close": proc.stdin.close()
    elif kind == "resize": set_cols(int(step[1])); spec["cols"] = int(step[1]); proc.send_signal(signal.SIGWINCH)
    elif kind == "until":
        deadline = time.time() + 10
        while not re.fullmatch(step[1], "".join(row)) and time.time() < deadline:
            if pump(0.05) is None: break
        snapshots.append("".join(row))
    elif kind == "rows":
        deadline = time.time() + 10
        while len(rows) < int(step[1]) and time.time() < deadline:
            if pump(0.05) is None: break
    elif kind == "gate":
        with open(step[1], "w") as gate: gate.write("\n")
proc.wait(timeout=20) if proc.stdin.closed else (proc.stdin.close(), proc.wait(timeout=20))
while pump(0.2): pass
print(json.dumps({"snapshots": snapshots, "rows": rows, "row": "".join(row), "status": proc.returncode}))
"""#

private struct Screen: Decodable, Equatable {
    var snapshots: [String]
    /// The rows scrolled by, and the one the cursor is on at the end.
    var rows: [String]
    var row: String
    var status: Int32
}

private let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Runs pace (`arguments`) under the harness; `stdout`/`stderr`: "tty" or a file.
private func onTerminal(_ arguments: [String], cols: Int = 80, stdout: String, stderr: String = "tty",
                        steps: [[String]], argv: [String]? = nil, controlling: Bool = false) throws -> Screen {
    let spec: [String: Any] = ["argv": argv ?? [Pace.binary.path] + arguments, "cols": cols, "stdout": stdout,
                               "stderr": stderr, "steps": steps, "ctty": controlling]
    let json = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python!)
    process.arguments = ["-c", harness, json]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return try JSONDecoder().decode(Screen.self, from: data)
}

/// The status line with its lines per second (which depend on timing) as N.
private func steady(_ row: String) -> String {
    row.replacingOccurrences(of: #"\d+ lines/s"#, with: "N lines/s", options: .regularExpression)
}

@Suite("--progress in a pseudo-terminal", .enabled(if: python != nil, "python3 is not installed"))
struct ProgressTests {
    private func scratchFile(_ name: String) throws -> String {
        let dir = try ScratchDirectory()
        return String(decoding: dir.file(Array(name.utf8)), as: UTF8.self)
    }

    @Test("live: the status line mid-run, redrawn in place; erased at exit, leaving nothing on the terminal")
    func midRunAndErased() throws {
        let out = try scratchFile("out")
        let screen = try onTerminal(["--debounce", "1h", "--progress"], stdout: out, steps: [
            ["write", "a\n"], ["until", "in 1, .*"],
            ["write", "b\n"], ["until", "in 2, .*"],
            ["close"],
        ])
        #expect(screen.snapshots.map(steady) == ["in 1, emitted 0, discarded 0, keys 1, N lines/s",
                                                 "in 2, emitted 0, discarded 1, keys 1, N lines/s"])
        #expect(screen.rows == [] && screen.row == "" && screen.status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "b\n")
    }

    @Test("a resize cuts the line to the new width (one column short of it)")
    func resize() throws {
        let out = try scratchFile("out")
        let screen = try onTerminal(["--debounce", "1h", "--progress"], cols: 80, stdout: out, steps: [
            ["write", "a\n"], ["until", "in 1, .*lines/s"],
            ["resize", "20"], ["until", "in 1, emitted 0, di"],
            ["resize", "30"], ["until", "in 1, emitted 0, discarded 0,"],
            ["close"],
        ])
        #expect(screen.snapshots.map(steady) == ["in 1, emitted 0, discarded 0, keys 1, N lines/s", "in 1, emitted 0, di",
                                                 "in 1, emitted 0, discarded 0,"])
        #expect(screen.rows == [] && screen.row == "")
    }

    @Test("stdout on the same terminal: each line erases the status first, so no row mixes the two")
    func stdoutSameTerminal() throws {
        let screen = try onTerminal(["--throttle", "1h", "--progress"], stdout: "tty", steps: [
            ["write", "first line\n"], ["until", "in 1, .*"],
            ["write", "dropped\n"], ["until", "in 2, .*"],
            ["close"],
        ])
        #expect(screen.rows == ["first line"])
        #expect(screen.snapshots.map(steady) == ["in 1, emitted 1, discarded 0, keys 1, N lines/s",
                                                 "in 2, emitted 1, discarded 1, keys 1, N lines/s"])
        #expect(screen.row == "")
    }

    @Test("replay with stdout on the same terminal: the status line stays drawn while pace waits for input")
    func replayWaitsDrawn() throws {
        let screen = try onTerminal(["--throttle", "1h", "--replay", "--time-format", "unix", "--progress"],
                                    stdout: "tty", steps: [
            ["write", "1 a\n"], ["until", "in 1, .*"],
            ["close"],
        ])
        #expect(screen.snapshots.map(steady) == ["in 1, emitted 1, discarded 0, keys 1, N lines/s, time 1.000000"])
        #expect(screen.rows == ["1 a"] && screen.row == "" && screen.status == 0)
    }

    @Test("stdout as /dev/tty, the controlling terminal stderr is on: its lines erase the status first too")
    func stdoutAsDevTTY() throws {
        let screen = try onTerminal([], stdout: "tty", steps: [
            ["write", "first line\n"], ["until", "in 1, .*"],
            ["write", "second\n"], ["until", "in 2, emitted 2, .*"],
            ["close"],
        ], argv: ["/bin/sh", "-c", "exec \"$0\" --throttle 1ns --progress > /dev/tty", Pace.binary.path],
           controlling: true)
        #expect(screen.rows == ["first line", "second"])
        #expect(screen.row == "" && screen.status == 0)
    }

    @Test("--exec: the status line is not drawn while a command runs (it writes to the terminal), and comes back after")
    func hiddenWhileCommandsRun() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let gate = String(decoding: dir.file(Array("gate".utf8)), as: UTF8.self)
        #expect(mkfifo(gate, 0o600) == 0)
        let screen = try onTerminal(["--throttle", "1h", "--key-field", "1", "--progress",
                                     "--exec", "echo ran $PACE_LINE; read x < '\(gate)'"], stdout: "tty", steps: [
            ["write", "a\n"], ["rows", "1"], ["gate", gate], ["until", "in 1, .*"],
            ["write", "b\n"], ["rows", "2"], ["gate", gate], ["until", "in 2, .*"],
            ["close"],
        ])
        #expect(screen.rows == ["ran a", "ran b"])
        #expect(screen.snapshots.map(steady) == ["in 1, emitted 1, discarded 0, keys 1, N lines/s",
                                                 "in 2, emitted 2, discarded 0, keys 2, N lines/s"])
        #expect(screen.row == "" && screen.status == 0)
    }

    @Test("--trace erases the status line before each of its lines, and it is redrawn after")
    func traceErasesFirst() throws {
        let out = try scratchFile("out")
        let screen = try onTerminal(["--debounce", "1h", "--progress", "--trace"], stdout: out, steps: [
            ["write", "a\n"], ["until", "in 1, .*"],
            ["write", "b\n"], ["until", "in 2, .*"],
            ["close"],
        ])
        #expect(screen.snapshots.map(steady) == ["in 1, emitted 0, discarded 0, keys 1, N lines/s",
                                                 "in 2, emitted 0, discarded 1, keys 1, N lines/s"])
        #expect(screen.rows.count == 2 && screen.rows.first == "pace: trace: line 1: replaced by line 2", "\(screen.rows)")
        #expect(screen.rows.last?.hasPrefix("pace: trace: line 2: still pending at end of input, emitted at ") == true)
        #expect(screen.row == "")
    }

    @Test("replay of a file: the time reached and the percent read; at exit, erased")
    func replayFile() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let log = String(decoding: dir.file(Array("in.log".utf8)), as: UTF8.self)
        try Data("1 a\n2 b\n3 c\n".utf8).write(to: URL(fileURLWithPath: log))
        let out = String(decoding: dir.file(Array("out".utf8)), as: UTF8.self)
        let screen = try onTerminal(["--throttle", "1h", "--replay", "--time-format", "unix", "--progress", log],
                                    stdout: out, steps: [["close"]])
        #expect(screen.rows == [] && screen.row == "" && screen.status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "1 a\n")
    }

    @Test("stderr redirected to a file: not one byte of status")
    func stderrNotATerminal() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let errors = String(decoding: dir.file(Array("err".utf8)), as: UTF8.self)
        let screen = try onTerminal(["--throttle", "1h", "--progress"], stdout: "tty", stderr: errors, steps: [
            ["write", "first line\n"], ["write", "second\n"], ["close"],
        ])
        #expect(screen.rows == ["first line"] && screen.row == "")
        #expect(try Data(contentsOf: URL(fileURLWithPath: errors)).isEmpty)
    }
}
