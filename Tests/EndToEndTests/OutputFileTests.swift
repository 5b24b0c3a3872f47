// A --record file that is the input (issue 15), or a --dropped or --record
// file that is stdout's (issue 21) or stderr's: a usage error, caught before
// anything is truncated, whatever name reaches the same file.

import Glibc
import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite("Output files that are the input or stdout, end to end")
struct OutputFileTests {
    static let log = bytes("0ms a\n1ms b\n")

    private func refused(_ path: [UInt8]) -> [UInt8] {
        bytes("pace: '--record' file '") + path + bytes("' is the input file (pace would overwrite what it reads)\n")
            + bytes(usageHintTail)
    }

    @Test("--record app.log app.log: exit 2, and app.log is left as it was")
    func sameName() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(Self.log, to: bytes("app.log"))
        let path = scratch.file(bytes("app.log"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--record"), path, path])
        #expect(result == RawResult(stdout: [], stderr: refused(path), status: 2))
        #expect(scratch.read(bytes("app.log")) == Self.log)
    }

    @Test("another name for the same file (a hard link, a symlink), read as stdin: the same")
    func otherNames() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(Self.log, to: bytes("app.log"))
        let path = scratch.file(bytes("app.log"))
        let hard = scratch.file(bytes("hard.log"))
        let soft = scratch.file(bytes("soft.log"))
        #expect(link(cString(path), cString(hard)) == 0 && symlink(cString(path), cString(soft)) == 0)
        for other in [hard, soft] {
            let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--record"), other], stdinFile: path)
            #expect(result == RawResult(stdout: [], stderr: refused(other), status: 2))
            #expect(scratch.read(bytes("app.log")) == Self.log)
        }
    }

    @Test("only regular files are compared: --record /dev/null with /dev/null as input is fine")
    func devices() throws {
        let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--record"), bytes("/dev/null")],
                                    stdinFile: bytes("/dev/null"))
        #expect(result == RawResult(stdout: [], stderr: [], status: 0))
    }

    // Issue 21: `--dropped o > o` had two descriptors write one file at
    // their own offsets, each over the other's lines.
    private func stdoutRefused(_ flag: String, _ path: [UInt8]) -> [UInt8] {
        bytes("pace: '\(flag)' file '") + path + bytes("' is stdout's file (lines written to both would overwrite each other)\n")
            + bytes(usageHintTail)
    }

    @Test("--dropped o > o and --record o > o: exit 2, and nothing is written to o", arguments: ["--dropped", "--record"])
    func stdoutsFile(flag: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let o = scratch.file(bytes("o"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1h"), bytes(flag), o], stdin: bytes("a\nb\n"), stdout: o)
        #expect(result == RawResult(stdout: [], stderr: stdoutRefused(flag, o), status: 2))
        #expect(scratch.read(bytes("o")) == [])
    }

    @Test("--dropped o >> o: refused before o is truncated, so o keeps what it held", arguments: ["--dropped", "--record"])
    func stdoutsFileAppended(flag: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let held = bytes("what o held before\n")
        try scratch.write(held, to: bytes("o"))
        let o = scratch.file(bytes("o"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1h"), bytes(flag), o], stdin: bytes("a\nb\n"),
                                    stdout: o, appendingStdout: true)
        // (RawResult's stdout is the helper's own file, unused here.)
        #expect(result == RawResult(stdout: [], stderr: stdoutRefused(flag, o), status: 2))
        #expect(scratch.read(bytes("o")) == held)
    }

    @Test("another name for stdout's file (a hard link, a symlink) is refused too; a different file is not")
    func stdoutsFileByOtherNames() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write([], to: bytes("o"))
        let o = scratch.file(bytes("o"))
        let hard = scratch.file(bytes("hard"))
        let soft = scratch.file(bytes("soft"))
        #expect(link(cString(o), cString(hard)) == 0 && symlink(cString(o), cString(soft)) == 0)
        for other in [hard, soft] {
            let result = try Pace.spawn([bytes("--throttle"), bytes("1h"), bytes("--dropped"), other],
                                        stdin: bytes("a\nb\n"), stdout: o, appendingStdout: true)
            #expect(result == RawResult(stdout: [], stderr: stdoutRefused("--dropped", other), status: 2))
            #expect(scratch.read(bytes("o")) == [])
        }
        let d = scratch.file(bytes("d"))
        let fine = try Pace.spawn([bytes("--throttle"), bytes("1h"), bytes("--dropped"), d], stdin: bytes("a\nb\n"),
                                  stdout: o)
        #expect(fine == RawResult(stdout: [], stderr: [], status: 0))
        #expect(scratch.read(bytes("o")) == bytes("a\n"))
        #expect(scratch.read(bytes("d")) == bytes("b\n"))
    }

    @Test("only a regular file is compared: stdout and --dropped both /dev/null is fine")
    func stdoutDevice() throws {
        let result = try Pace.spawn([bytes("--throttle"), bytes("1h"), bytes("--dropped"), bytes("/dev/null")],
                                    stdin: bytes("a\nb\n"), stdout: bytes("/dev/null"))
        #expect(result == RawResult(stdout: [], stderr: [], status: 0))
    }

    // RawProcess's stderr is a regular file of its own: `/dev/stderr`
    // opens it anew, at offset 0, over pace's messages.
    @Test("--dropped, --record, --metrics or --state /dev/stderr while stderr is a regular file: exit 2",
          arguments: [("--dropped", "messages and lines written to both would overwrite each other"),
                      ("--record", "messages and lines written to both would overwrite each other"),
                      ("--metrics", "messages and lines written to both would overwrite each other"),
                      ("--state", "a save would replace pace's messages")])
    func stderrsFile(flag: String, why: String) throws {
        let result = try Pace.spawn([bytes("--throttle"), bytes("1h"), bytes(flag), bytes("/dev/stderr")],
                                    stdin: bytes("a\nb\n"))
        #expect(result == RawResult(stdout: [], stderr: bytes("pace: '\(flag)' file '/dev/stderr' is stderr's file (\(why))\n")
                                    + bytes(usageHintTail), status: 2))
    }

    @Test("--state FILE whose FILE.lock is stderr's file: exit 2")
    func stateLockIsStderr() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        #expect(symlink("/dev/stderr", cString(scratch.file(bytes("s.lock")))) == 0)
        let state = scratch.file(bytes("s"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1h"), bytes("--state"), state], stdin: bytes("a\n"))
        #expect(result == RawResult(stdout: [], stderr: bytes("pace: '--state' file '") + state + bytes("' needs '") + state
                                    + bytes(".lock' beside it, which is stderr's file\n") + bytes(usageHintTail), status: 2))
    }

    @Test("a FIFO nobody opened the other end of (the input, or --dropped's) does not hold back a later usage error",
          arguments: [false, true])
    func fifoThenUsageError(dropped: Bool) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let fifo = String(decoding: scratch.file(bytes("f")), as: UTF8.self)
        #expect(mkfifo(fifo, 0o600) == 0)
        let pace = try PipedPace(["--throttle", "1s", "--metrics", "/nonexistent/pace-m"] + (dropped ? ["--dropped", fifo] : [fifo]))
        let end = pace.finish(timeout: 5)
        #expect(end.status == 2)
        #expect(end.errors == "pace: /nonexistent/pace-m: No such file or directory\n" + usageHintTail)
    }

    @Test("a FIFO output that is the input FIFO, or another output's FIFO, is refused")
    func fifoOutputs() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let fifo = String(decoding: scratch.file(bytes("f")), as: UTF8.self)
        #expect(mkfifo(fifo, 0o600) == 0)
        let loop = try PipedPace(["--throttle", "1s", "--dropped", fifo, fifo])
        let looped = loop.finish(timeout: 5)
        #expect(looped.status == 2)
        #expect(looped.errors == "pace: '--dropped' file '\(fifo)' is the input file (pace would read its own lines)\n"
                + usageHintTail)
        // A reader, so that the outputs' opens do not wait.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        let both = try PipedPace(["--throttle", "1s", "--dropped", fifo, "--record", fifo], .init(closeStdin: true))
        let mixed = both.finish(timeout: 5)
        #expect(mixed.status == 2)
        #expect(mixed.errors == "pace: '--dropped' file '\(fifo)' is also the '--record' file\n" + usageHintTail)
    }

    @Test("FIFOs are compared before any is opened: no reader needed, --metrics' FIFO and stdin's pipe too")
    func fifoOutputsWithoutReader() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let fifo = String(decoding: scratch.file(bytes("f")), as: UTF8.self)
        #expect(mkfifo(fifo, 0o600) == 0)
        for (arguments, message) in [
            (["--dropped", fifo, "--record", fifo], "'--dropped' file '\(fifo)' is also the '--record' file"),
            (["--dropped", fifo, "--metrics", fifo], "'--metrics' file '\(fifo)' is also the '--dropped' file"),
            (["--metrics", fifo, fifo], "'--metrics' file '\(fifo)' is the input file (pace would read its own lines)"),
            (["--metrics", "/dev/stdin"], "'--metrics' file '/dev/stdin' is the input file (pace would read its own lines)"),
        ] {
            let pace = try PipedPace(["--throttle", "1s"] + arguments)
            let end = pace.finish(timeout: 5)
            #expect(end.status == 2)
            #expect(end.errors == "pace: \(message)\n" + usageHintTail)
        }
    }

    @Test("--metrics FILE whose new copy cannot be made beside it (its name too long): a usage error, FILE not left")
    func metricsReplacementTooLong() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // 250 bytes is a legal name; with `.<pid>.tmp` it is not.
        let metrics = scratch.file(bytes(String(repeating: "m", count: 250)))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--metrics"), metrics], stdin: bytes("a\n"))
        #expect(result.stdout == [])
        #expect(result.status == 2)
        let text = String(decoding: result.stderr, as: UTF8.self)
        let quoted = String(decoding: metrics, as: UTF8.self)
        #expect(text.hasPrefix("pace: '--metrics' file '\(quoted)': pace cannot make '\(quoted)."))
        #expect(text.hasSuffix(".tmp' beside it (File name too long)\n" + usageHintTail))
        #expect(access(cString(metrics), F_OK) != 0)
    }

    @Test("a refused command line removes the output files it made")
    func refusedLeavesNothing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let made = scratch.file(bytes("n1"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--dropped"), made, bytes("--metrics"),
                                     bytes("/nonexistent/pace-m")], stdin: bytes("a\n"))
        #expect(result == RawResult(stdout: [], stderr: bytes("pace: /nonexistent/pace-m: No such file or directory\n")
                                    + bytes(usageHintTail), status: 2))
        #expect(access(cString(made), F_OK) != 0)
        // Two names of one new file: it goes too.
        let twice = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--dropped"), made, bytes("--record"), made],
                                   stdin: bytes("a\n"))
        #expect(twice.status == 2 && access(cString(made), F_OK) != 0)
        // A dangling link is the user's: it stays.
        let link = scratch.file(bytes("link"))
        #expect(symlink(cString(scratch.file(bytes("target"))), cString(link)) == 0)
        let linked = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--dropped"), link, bytes("--metrics"),
                                     bytes("/nonexistent/pace-m")], stdin: bytes("a\n"))
        var info = stat()
        #expect(linked.status == 2 && lstat(cString(link), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
    }

    @Test("a record file that is not the input is still truncated")
    func truncated() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(bytes("old contents, longer than the record\n"), to: bytes("r.rec"))
        let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--record"), scratch.file(bytes("r.rec"))],
                                    stdin: bytes("a\n"))
        #expect(result == RawResult(stdout: bytes("a\n"), stderr: [], status: 0))
        let record = scratch.read(bytes("r.rec")) ?? []
        // `<seconds>.<6 digits>TAB a`: only the new line.
        #expect(record.count == 10 + 1 + 6 + 1 + 2 && record.suffix(3) == bytes("\ta\n"),
                "\(String(decoding: record, as: UTF8.self))")
    }
}
