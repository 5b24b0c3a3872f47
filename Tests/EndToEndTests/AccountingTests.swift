// `--count` and `--dropped FILE` end to end (issue 13): the real binary, real
// files. The expected bytes are worked out by hand from SPEC's Accounting.

import Foundation
import Testing

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A throttle of 1 s per key (field 2), with an empty line and a bad-time
/// line skipped: what goes where is spelled out line by line.
private let stream = """
    10.000000 a one
    10.200000 a two
    10.300000 b three

    garbage
    10.500000 a four
    11.000000 a five
    11.100000 b six
    11.400000 a seven

    """
// a: one (emitted, 1), two dropped, four dropped, five (emitted at 11 when
// a's window has ended: 3 = itself + two + four), seven dropped after.
// b: three (emitted, 1), six dropped after.
private let throttleArguments = ["--throttle", "1s", "--replay", "--time-format", "unix", "--key-field", "2",
                                 "--on-bad-time", "skip"]

@Suite("--count and --dropped, end to end")
struct AccountingTests {
    @Test("--count with --emit-time: time, then count, then the line")
    func countAfterEmitTime() throws {
        let result = try Pace.run(throttleArguments + ["--count", "--emit-time"], stdin: stream)
        #expect(result == PaceResult(stdout: bytes("""
            10.000000\t1\t10.000000 a one
            10.300000\t1\t10.300000 b three
            11.000000\t3\t11.000000 a five

            """), stderr: "", status: 0))
        let alone = try Pace.run(throttleArguments + ["--count"], stdin: stream)
        #expect(alone.stdoutText == "1\t10.000000 a one\n1\t10.300000 b three\n3\t11.000000 a five\n")
    }

    @Test("--dropped gets every other line as read, with its discard time under --emit-time")
    func droppedFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dropped = String(decoding: scratch.file(bytes("dropped.log")), as: UTF8.self)
        let result = try Pace.run(throttleArguments + ["--dropped", dropped], stdin: stream)
        #expect(result == PaceResult(stdout: bytes("10.000000 a one\n10.300000 b three\n11.000000 a five\n"),
                                     stderr: "", status: 0))
        #expect(scratch.read(bytes("dropped.log")) == bytes("""
            10.200000 a two

            garbage
            10.500000 a four
            11.100000 b six
            11.400000 a seven

            """))
        _ = try Pace.run(throttleArguments + ["--dropped", dropped, "--emit-time"], stdin: stream)
        // The empty line and the bad one are discarded at the current
        // virtual time, the latest seen (10.3).
        #expect(scratch.read(bytes("dropped.log")) == bytes("""
            10.200000\t10.200000 a two
            10.300000\t
            10.300000\tgarbage
            10.500000\t10.500000 a four
            11.100000\t11.100000 b six
            11.400000\t11.400000 a seven

            """))
    }

    @Test("--stats, --trace, --count and --dropped agree on one stream")
    func theyAgree() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dropped = String(decoding: scratch.file(bytes("d")), as: UTF8.self)
        let result = try Pace.run(throttleArguments + ["--count", "--stats", "--trace", "--dropped", dropped],
                                  stdin: stream)
        #expect(result.status == 0)
        #expect(result.stdoutText == "1\t10.000000 a one\n1\t10.300000 b three\n3\t11.000000 a five\n")
        let droppedLines = String(decoding: scratch.read(bytes("d")) ?? [], as: UTF8.self)
        #expect(droppedLines.split(separator: "\n", omittingEmptySubsequences: false).count == 6 + 1)
        // --trace: lines 1, 3, 7 emitted; every other line dropped or skipped.
        let fates = result.stderr.split(separator: "\n").filter { $0.hasPrefix("pace: trace: line ") }
        #expect(fates.count == 9)
        for fate in fates {
            let number = Int(fate.dropFirst("pace: trace: line ".count).prefix { $0.isNumber })!
            let emitted = fate.contains(": emitted at ")
            #expect(emitted == [1, 3, 7].contains(number), "\(fate)")
        }
        // --stats: a has 5 in = counts 1 + 3 + seven after; b 2 = 1 + six.
        // Dropped is what --dropped got: the 4 events the keys dropped, the
        // empty line and the bad one.
        #expect(result.stderr.hasSuffix("""
            pace: stats:
              events in:           7
              emitted:             3
              dropped:             6
              distinct keys:       2
              peak active keys:    2
              clamped timestamps:  0
              bad-time lines:      1
              passed through:      0
              empty lines:         1
              uncounted discards:  0
            pace: stats by key (top 2 of 2 by events in):
              key  in  emitted  dropped
              a     5        2        3
              b     2        1        1

            """), "\(result.stderr)")
    }

    @Test("a replaced pending line goes to --dropped, and counts in the line that replaced it")
    func replaced() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dropped = String(decoding: scratch.file(bytes("d")), as: UTF8.self)
        let result = try Pace.run(["--debounce", "1s", "--replay", "--time-format", "unix", "--count", "--emit-time",
                                   "--dropped", dropped], stdin: "10.000000 p\n10.500000 q\n10.700000 r\n")
        #expect(result.stdoutText == "11.700000\t3\t10.700000 r\n")
        #expect(scratch.read(bytes("d")) == bytes("10.500000\t10.000000 p\n10.700000\t10.500000 q\n"))
    }

    @Test("a line passed by --on-bad-time pass counts 1")
    func passedCountsOne() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--count",
                                   "--on-bad-time", "pass"], stdin: "10.000000 a\n10.100000 a\ngarbage\n")
        #expect(result.stdoutText == "1\t10.000000 a\n1\tgarbage\n")
    }

    @Test("record input: dropped lines without their prefix, as stdout would show them")
    func recordFormat() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dropped = String(decoding: scratch.file(bytes("d")), as: UTF8.self)
        let input = "10.000000\tx\n10.100000\ty\n"
        let plain = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "record", "--dropped", dropped],
                                 stdin: input)
        #expect(plain.stdoutText == "x\n")
        #expect(scratch.read(bytes("d")) == bytes("y\n"))
        _ = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "record", "--emit-time", "--dropped", dropped],
                         stdin: input)
        #expect(scratch.read(bytes("d")) == bytes("10.100000\ty\n"))
    }

    @Test("a write error on the --dropped file: pace: FILE: error, exit 1")
    func writeError() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--dropped", "/dev/full"],
                                  stdin: "10.000000 a\n10.100000 a\n")
        #expect(result.stderr == "pace: /dev/full: No space left on device\n")
        #expect(result.status == 1)
    }

    @Test("a write error on --dropped in the middle of a replay: stdout still gets the lines that passed before it")
    func writeErrorMidRun() throws {
        // 1,001 lines pass (8 KB, inside stdout's buffer); the 40,000
        // discarded after them (280 KB) fill --dropped's buffer, whose write fails.
        let passing = (0..<1_000).map { "1 k\($0)" } + ["2 same"]
        let input = (passing + Array(repeating: "2 same", count: 40_000)).map { $0 + "\n" }.joined()
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--key-field", "2",
                                   "--dropped", "/dev/full"], stdin: input)
        #expect(result.stdoutText == passing.map { $0 + "\n" }.joined())
        #expect(result.stderr == "pace: /dev/full: No space left on device\n")
        #expect(result.status == 1)
    }

    @Test("a --dropped file that cannot be created, or is the input or the --record file: usage errors")
    func usageErrors() throws {
        let missing = try Pace.run(["--throttle", "1s", "--dropped", "/nonexistent/pace-dropped"])
        #expect(missing == PaceResult(stdout: [], stderr: "pace: /nonexistent/pace-dropped: No such file or directory\n"
                                      + usageHintTail, status: 2))
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.write(bytes("10.000000 a\n"), to: bytes("app.log"))
        let path = String(decoding: scratch.file(bytes("app.log")), as: UTF8.self)
        let input = try Pace.run(["--throttle", "1s", "--replay", "--dropped", path, path])
        #expect(input == PaceResult(stdout: [], stderr: "pace: '--dropped' file '\(path)' is the input file "
                                    + "(pace would overwrite what it reads)\n" + usageHintTail, status: 2))
        #expect(scratch.read(bytes("app.log")) == bytes("10.000000 a\n"))
        let other = String(decoding: scratch.file(bytes("r")), as: UTF8.self)
        let both = try Pace.run(["--throttle", "1s", "--record", other, "--dropped", other])
        #expect(both == PaceResult(stdout: [], stderr: "pace: '--dropped' file '\(other)' is also the '--record' file\n"
                                   + usageHintTail, status: 2))
        let empty = try Pace.run(["--throttle", "1s", "--dropped", ""])
        #expect(empty == PaceResult(stdout: [], stderr: "pace: --dropped: the file name is empty\n" + usageHintTail,
                                    status: 2))
    }

    @Test("the name in a --dropped write error is the file name's own bytes")
    func byteName() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // A name that is not UTF-8, for /dev/full.
        let name = scratch.file([0x66, 0xFF])
        #expect(symlink("/dev/full", cString(name)) == 0)
        let result = try Pace.spawn([bytes("--throttle"), bytes("1s"), bytes("--replay"), bytes("--time-format"),
                                     bytes("unix"), bytes("--dropped"), name],
                                    stdin: bytes("10.000000 a\n10.100000 a\n"))
        #expect(result == RawResult(stdout: bytes("10.000000 a\n"),
                                    stderr: bytes("pace: ") + name + bytes(": No space left on device\n"), status: 1))
    }

    @Test("--stats past 100,000 keys: the table comes from the summary, says so, and still finds the busy key")
    func statsSummary() throws {
        // 150,000 keys seen once each, and key h 3,000 times among them.
        var text = ""
        for i in 0..<150_000 {
            let stamp = "\(10 + i / 10_000).\(String(repeating: "0", count: 6 - String(i % 10_000 * 100).count))\(i % 10_000 * 100)"
            text += "\(stamp) k\(i)\n"
            if i % 50 == 0 { text += "\(stamp) h\n" }
        }
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--key-field", "2",
                                   "--stats"], stdin: text)
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains("  distinct keys:       150001"))
        #expect(lines.contains("pace: stats by key (top 10 of 150001 by events in):"))
        #expect(lines.contains { $0.hasPrefix("pace: more keys than the 100,000 counted exactly") })
        #expect(lines.contains("  key        in  emitted  dropped  ±"), "\(result.stderr)")
        // h: 3,000 in, 15 emitted (one a second), the rest dropped; it has
        // had its entry from its first line, and never had the fewest
        // events, so its numbers are exact (± 0).
        #expect(lines.contains("  h        3000       15     2985  0"), "\(result.stderr)")
        // The nine others: keys seen once, their in inflated by the error they inherit.
        #expect(lines.filter { $0.hasPrefix("  k") && !$0.hasPrefix("  key") }.count == 9)
    }
}
