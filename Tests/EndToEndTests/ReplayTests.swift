// The built binary in replay mode, end to end: exact stdout bytes, exact
// stderr, exit status. Expected outputs are worked out by hand from SPEC.

import Foundation
import Testing

@Suite("pace --replay, end to end")
struct ReplayEndToEndTests {
    @Test("the README example prints exactly what the README says")
    func readmeExample() throws {
        let example = Pace.repositoryRoot.appendingPathComponent("examples/typing.log").path
        let result = try Pace.run(["--debounce", "300ms", "--replay", "--emit-time", example])
        #expect(result == PaceResult(stdout: Array("0.560000\t260ms swift\n".utf8), stderr: "", status: 0))
    }

    @Test("lines are bytes: \\r, NUL, invalid UTF-8 and a last line without newline survive")
    func byteExact() throws {
        var input: [UInt8] = Array("1795953600.5 a\r\n".utf8)
        input += Array("1795953600.7 b".utf8) + [0x00, 0xFF, 0xFE, 0x0D, 0x0A]
        input += Array("1795953605 c".utf8) + [0x80, 0x0D]
        let result = try Pace.run(["--throttle", "1s", "--replay"], stdin: input)
        let expected: [UInt8] = Array("1795953600.5 a\r\n".utf8) + Array("1795953605 c".utf8) + [0x80, 0x0D, 0x0A]
        #expect(result == PaceResult(stdout: expected, stderr: "", status: 0))
    }

    @Test("throttle-last keeps the latest line and emits it when the window ends")
    func throttleLastBytes() throws {
        let input = "0ms a\n10ms b\n20ms c\n150ms d\n"
        let result = try Pace.run(["--throttle-last", "100ms", "--replay", "--emit-time"], stdin: input)
        // a at 0 opens [0,100); c replaces b, out at 100, opens [100,200);
        // d (150) is held and comes out at 200.
        #expect(result.stdoutText == "0.000000\t0ms a\n0.100000\t20ms c\n0.200000\t150ms d\n")
        #expect(result.status == 0)
    }

    @Test("--leading --trailing: each burst's first line at once, its last at its end; --count and --dropped")
    func leadingTrailingBytes() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let dropped = String(decoding: scratch.file(Array("dropped.log".utf8)), as: UTF8.self)
        let input = """
            10.000000 a one
            10.200000 b two
            10.400000 a three
            10.900000 a four
            11.100000 b five
            11.900000 a six
            12.000000 b seven
            14.000000 a eight

            """
        let result = try Pace.run(["--leading", "1s", "--trailing", "--key-field", "2", "--replay", "--time-format", "unix",
                                   "--emit-time", "--count", "--dropped", dropped], stdin: input)
        // a: one out at once; three waits, replaced by four (three to
        // --dropped), which goes out at 10.9 + 1 = 11.9 counting 2. That
        // timer fires before six at 11.9, which then starts a new burst and
        // goes out at once; its window ends at 12.9 with nothing pending, so
        // eight at 14 starts another. b: two at once; five waits, replaced
        // by seven, out at 12 + 1 = 13 counting 2.
        #expect(result == PaceResult(stdout: Array("""
            10.000000\t1\t10.000000 a one
            10.200000\t1\t10.200000 b two
            11.900000\t2\t10.900000 a four
            11.900000\t1\t11.900000 a six
            13.000000\t2\t12.000000 b seven
            14.000000\t1\t14.000000 a eight

            """.utf8), stderr: "", status: 0))
        // The lines replaced, at the time they were: with stdout, the input.
        #expect(scratch.read(Array("dropped.log".utf8)) == Array("""
            10.900000\t10.400000 a three
            12.000000\t11.100000 b five

            """.utf8))
    }

    @Test("keys are independent; same-instant emissions come out in input order")
    func keyedDebounce() throws {
        let input = "0ms x 1\n5ms y 1\n10ms x 2\n15ms y 2\n"
        let result = try Pace.run(["--debounce", "10ms", "--key-field", "2", "--replay", "--emit-time"], stdin: input)
        // x: pending 1 (due 10), replaced by 2 at 10? No: the timer due at 10
        // fires first, emitting "x 1"; then "x 2" pends until 20. y likewise:
        // "y 1" at 15 fires before "y 2"; "y 2" at 25.
        #expect(result.stdoutText == "0.010000\t0ms x 1\n0.015000\t5ms y 1\n0.020000\t10ms x 2\n0.025000\t15ms y 2\n")
    }

    @Test("--time-format record strips the prefix before fields, keys and output")
    func recordFormat() throws {
        let input = "1795953600.000000\tGET a 1\n1795953600.100000\tGET b 1\n1795953600.200000\tGET a 2\n"
        let result = try Pace.run(["--throttle", "1s", "--key-field", "2", "--replay", "--time-format", "record"], stdin: input)
        #expect(result == PaceResult(stdout: Array("GET a 1\nGET b 1\n".utf8), stderr: "", status: 0))
    }

    @Test("--time-field reads the timestamp further along; an opening [ is skipped")
    func timeField() throws {
        let input = "- [1795953600 a\n- [1795953600.5 b\n- [1795953602 c\n"
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-field", "2", "--emit-time"], stdin: input)
        #expect(result.stdoutText == "1795953600.000000\t- [1795953600 a\n1795953602.000000\t- [1795953602 c\n")
    }

    @Test("--stats counts events, emissions, clamped timestamps and empty lines")
    func stats() throws {
        let input = "0ms a\n\n100ms b\n\r\n50ms c\n300ms d\n"
        let result = try Pace.run(["--leading", "100ms", "--replay", "--stats"], stdin: input)
        // a emitted (window to 100); b at 100 opens anew: emitted, window to
        // 200; c at 50 is clamped to 100, inside the window, extends it to
        // 200; d at 300 emitted. Dropped: c, and the two empty lines replay
        // skips (what --dropped would get).
        #expect(result.stdoutText == "0ms a\n100ms b\n300ms d\n")
        #expect(result.stderr == """
            pace: stats:
              events in:           4
              emitted:             3
              dropped:             3
              distinct keys:       1
              peak active keys:    1
              clamped timestamps:  1
              bad-time lines:      0
              passed through:      0
              empty lines:         2

            """)
        #expect(result.status == 0)
    }

    // MARK: - Bad timestamps (SPEC's error table)

    static let mixed = "0ms a\n100ms b\nxyz\n200ms c\n"

    @Test("--on-bad-time error: input ends before the bad line, pending lines come out, exit 1")
    func badTimeError() throws {
        let result = try Pace.run(["--debounce", "50ms", "--replay", "--emit-time"], stdin: Self.mixed)
        #expect(result == PaceResult(
            stdout: Array("0.050000\t0ms a\n0.150000\t100ms b\n".utf8),
            stderr: "pace: line 3: timestamp does not match offset, the format --time-format auto found on the first timestamped line\n",
            status: 1))
    }

    @Test("--on-bad-time skip drops the line and counts it")
    func badTimeSkip() throws {
        let result = try Pace.run(["--debounce", "50ms", "--replay", "--emit-time", "--on-bad-time", "skip"], stdin: Self.mixed)
        #expect(result.stdoutText == "0.050000\t0ms a\n0.150000\t100ms b\n0.250000\t200ms c\n")
        #expect(result.status == 0)
        #expect(result.stderr == "")
    }

    @Test("--on-bad-time pass writes the line at once at the current virtual time")
    func badTimePass() throws {
        let result = try Pace.run(["--debounce", "50ms", "--replay", "--emit-time", "--on-bad-time=pass"], stdin: Self.mixed)
        #expect(result.stdoutText == "0.050000\t0ms a\n0.100000\txyz\n0.150000\t100ms b\n0.250000\t200ms c\n")
        #expect(result.status == 0)
    }

    @Test("a bad line before any time passes at time 0")
    func passBeforeAnyTime() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--emit-time", "--on-bad-time", "pass"], stdin: "junk\n5s a\n")
        #expect(result.stdoutText == "0.000000\tjunk\n5.000000\t5s a\n")
    }

    @Test("auto refuses numbers that are not plausible epochs")
    func autoPlausibility() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay"], stdin: "1.5 x\n")
        #expect(result == PaceResult(
            stdout: [],
            stderr: "pace: line 1: no timestamp recognised (tried iso8601, clf, syslog, unix, unix-ms, unix-us, unix-ns, offset; see --time-format)\n",
            status: 1))
        let explicit = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--emit-time"], stdin: "1.5 x\n")
        #expect(explicit.stdoutText == "1.500000\t1.5 x\n")
    }

    @Test("unix-ms and negative times in --emit-time")
    func unixMsAndNegative() throws {
        let ms = try Pace.run(["--throttle", "1s", "--replay", "--emit-time"], stdin: "1795953600123 a\n")
        #expect(ms.stdoutText == "1795953600.123000\t1795953600123 a\n")
        let negative = try Pace.run(["--debounce", "1ns", "--replay", "--emit-time", "--time-format", "offset"], stdin: "-1.5us a\n")
        // -1500 ns + 1 ns = -1499 ns, floored to microseconds: -0.000002.
        #expect(negative.stdoutText == "-0.000002\t-1.5us a\n")
    }

    @Test("empty input: no output, exit 0")
    func emptyInput() throws {
        #expect(try Pace.run(["--debounce", "1s", "--replay"], stdin: "") == PaceResult(stdout: [], stderr: "", status: 0))
    }

    // MARK: - Faults

    @Test("stdout closed early ends pace quietly with 0")
    func closedStdout() throws {
        let lines = (1...200_000).map { "\($0)ns x\n" }.joined()
        let path = try Pace.file(Array(lines.utf8))
        let result = try Pace.run(["-c", "\"$0\" --throttle 1ns --replay \"$1\" | head -1; echo \"status ${PIPESTATUS[0]}\"",
                                   Pace.binary.path, path], stdin: [], shell: true)
        #expect(result.stdoutText == "1ns x\nstatus 0\n")
        #expect(result.stderr == "")
    }

    @Test("a write error on stdout is reported, exit 1")
    func fullDisk() throws {
        let result = try Pace.run(["-c", "printf '0ms a\\n' | \"$0\" --throttle 1s --replay > /dev/full; echo \"status $?\"",
                                   Pace.binary.path], stdin: [], shell: true)
        #expect(result.stdoutText == "status 1\n")
        #expect(result.stderr == "pace: stdout: No space left on device\n")
    }

    @Test("the input that is stdout's regular file (pace f >> f) is a usage error: pace would read what it writes")
    func inputIsStdout() throws {
        let path = try Pace.file(Array("0 a\n1 b\n".utf8))
        // Under `timeout`: a pace that reads what it writes never ends.
        let named = try Pace.run(["-c", "timeout 10 \"$0\" --limit 1000000/s \"$1\" >> \"$1\"; echo \"status $?\"",
                                  Pace.binary.path, path], stdin: [], shell: true)
        #expect(named == PaceResult(stdout: Array("status 2\n".utf8),
                                    stderr: "pace: the input file '\(path)' is stdout's file (pace would read the lines it writes)\n"
                                        + usageHintTail, status: 0))
        let redirected = try Pace.run(["-c", "timeout 10 \"$0\" --limit 1000000/s < \"$1\" >> \"$1\"; echo \"status $?\"",
                                       Pace.binary.path, path], stdin: [], shell: true)
        #expect(redirected == PaceResult(stdout: Array("status 2\n".utf8),
                                         stderr: "pace: the input is stdout's file (pace would read the lines it writes)\n"
                                             + usageHintTail, status: 0))
        #expect(FileManager.default.contents(atPath: path) == Data("0 a\n1 b\n".utf8))
    }

    @Test("a missing or unreadable FILE is a usage error")
    func missingFile() throws {
        let missing = try Pace.run(["--debounce", "1s", "--replay", "/nonexistent/pace-input"])
        #expect(missing == PaceResult(stdout: [], stderr: "pace: /nonexistent/pace-input: No such file or directory\n" + usageHintTail, status: 2))
        let directory = try Pace.run(["--debounce", "1s", "--replay", "/"])
        #expect(directory == PaceResult(stdout: [], stderr: "pace: /: Is a directory\n" + usageHintTail, status: 2))
    }
}

extension Pace {
    /// Runs a bash command line (for pipes and redirections); `arguments[0]`
    /// is `-c` and its script, the rest its positional parameters.
    static func run(_ arguments: [String], stdin: [UInt8], shell: Bool) throws -> PaceResult {
        try run(arguments, stdin: stdin, executable: URL(fileURLWithPath: "/bin/bash"))
    }
}
