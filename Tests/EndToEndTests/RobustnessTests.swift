// Bad input and faults, replay side: nothing crashes, nothing is lost
// silently, every failure says `pace: ...` with SPEC's exit code.

import Foundation
import Glibc
import Testing

@Suite("Robustness, end to end")
struct RobustnessEndToEndTests {
    @Test("a 100 MB line is one event, written back byte for byte")
    func hugeLine() throws {
        var input = Array("1s ".utf8)
        input += [UInt8](repeating: UInt8(ascii: "x"), count: 100 * 1024 * 1024)
        input += Array("\n2s tail\n".utf8)
        let result = try Pace.run(["--debounce", "100ms", "--replay"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout.count == input.count)
        #expect(result.stdout == input)
    }

    @Test("lines of only blanks have no time field; binary garbage is a bad timestamp, not a crash")
    func blanksAndGarbage() throws {
        let input: [UInt8] = Array("1s a\n   \t \n".utf8) + [0x00, 0xFF, 0x80, 0x1B, 0x5B, 0x0A] + Array("2s b\n".utf8)
        let skip = try Pace.run(["--throttle", "1ms", "--replay", "--on-bad-time", "skip", "--stats"], stdin: input)
        #expect(skip.stdoutText == "1s a\n2s b\n")
        #expect(skip.stderr.contains("  bad-time lines:      2\n"))
        let error = try Pace.run(["--throttle", "1ms", "--replay"], stdin: input)
        #expect(error == PaceResult(stdout: Array("1s a\n".utf8),
                                    stderr: "pace: line 2: no time field 1 (the line has fewer fields)\n", status: 1))
    }

    @Test("a file where every line goes backwards: all clamped to the first time, counted")
    func allBackwards() throws {
        let input = (0..<100).reversed().map { "\($0)s line\($0)\n" }.joined()
        let result = try Pace.run(["--debounce", "1s", "--replay", "--emit-time", "--stats"], stdin: input)
        // Every line is clamped to 99 s; the last one is emitted at 100 s.
        #expect(result.stdoutText == "100.000000\t0s line0\n")
        #expect(result.stderr.contains("  clamped timestamps:  99\n"))
        #expect(result.status == 0)
    }

    @Test("extreme timestamps are bad timestamps with a reason, never a trap", arguments: [
        ("1234567890123456789012345 x", "unix", "timestamp out of range (pace handles 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z)"),
        ("9223372037 x", "unix", "timestamp out of range (pace handles 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z)"),
        ("9999999999999999999999ms x", "offset", "timestamp out of range (pace handles 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z)"),
        ("99999999999999999 x", "unix-ms", "timestamp out of range (pace handles 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z)"),
        ("1h1 x", "offset", "timestamp does not match --time-format offset"),
    ])
    func extremeStamps(line: String, format: String, why: String) throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", format], stdin: line + "\n")
        #expect(result == PaceResult(stdout: [], stderr: "pace: line 1: \(why)\n", status: 1))
    }

    @Test("huge fractions are truncated to nanoseconds; near-limit windows saturate")
    func hugeFractionsAndSaturation() throws {
        let fraction = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "unix", "--emit-time"],
                                    stdin: "1.99999999999999999999999999 x\n")
        #expect(fraction.stdoutText == "1.999999\t1.99999999999999999999999999 x\n")
        // 9223372036 s is just below Int64's limit; adding 2562047h saturates.
        let saturated = try Pace.run(["--debounce", "2562047h", "--replay", "--time-format", "unix", "--emit-time"],
                                     stdin: "9223372036 a\n9223372036 b\n")
        #expect(saturated.stdoutText == "9223372036.854775\t9223372036 b\n")
        #expect(saturated.status == 0)
    }

    @Test("negative offsets are times before the origin")
    func negativeOffsets() throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "offset", "--emit-time"],
                                  stdin: "-5s a\n-4.5s b\n-3s c\n")
        #expect(result.stdoutText == "-5.000000\t-5s a\n-3.000000\t-3s c\n")
    }

    @Test("live mode: bad bytes pass byte for byte, empty lines are events")
    func liveBytes() throws {
        // Each line is its own key (field 1; the empty line has the empty
        // key), so a 1 ns debounce lets every line through, in input order.
        let input: [UInt8] = Array("a".utf8) + [0x00, 0xFF, 0x0D, 0x0A, 0x0A, 0x80, 0xC3, 0x0D, 0x0A] + Array("last".utf8)
        let result = try Pace.run(["--debounce", "1ns", "--key-field", "1", "--stats"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdout == input + [0x0A])
        #expect(result.stderr.contains("  events in:           4\n"))
        #expect(result.stderr.contains("  empty lines:         1\n"))
    }

    @Test("year 1 and year 9999 are out of range, with the reason", arguments: [
        "0001-01-01T00:00:00Z x", "9999-12-31T23:59:59Z x", "1677-09-21T00:12:43Z x", "2262-04-12T00:00:00Z x",
    ])
    func yearsOutOfRange(line: String) throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "iso8601"], stdin: line + "\n")
        #expect(result == PaceResult(stdout: [], stderr: "pace: line 1: timestamp out of range (pace handles 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z)\n",
                                     status: 1))
    }

    @Test("the first and last representable instants are taken, as the message says", arguments: [
        "1677-09-21T00:12:43.145224192Z x", "2262-04-11T23:47:16.854775807Z x",
    ])
    func edgesOfRange(line: String) throws {
        let result = try Pace.run(["--throttle", "1s", "--replay", "--time-format", "iso8601"], stdin: line + "\n")
        #expect(result == PaceResult(stdout: Array((line + "\n").utf8), stderr: "", status: 0))
    }

    @Test("a signal ends input as end of input does: an unfinished last line is still a line", arguments: [
        (["--debounce", "10s", "--replay", "--emit-time"], "0s a\n1s b\n5s c", "15.000000\t5s c\n"),
        (["--throttle", "1ns"], "x\nabc", "x\nabc\n"),
    ] as [([String], String, String)])
    func signalWithUnfinishedLine(arguments: [String], input: String, expected: String) throws {
        let result = try runInterrupted(arguments, input: input, signal: SIGTERM)
        #expect(result.stdoutText == expected + "status 143\n")
    }

    @Test("SIGINT and SIGTERM during replay end input: pending lines come out, exit 130 and 143",
          arguments: [(SIGINT, 130), (SIGTERM, 143)] as [(Int32, Int32)])
    func signalsInReplay(signal: Int32, status: Int32) throws {
        let result = try runInterrupted(["--debounce", "10s", "--replay", "--emit-time"],
                                        input: "0s a\n1s b\n", signal: signal)
        #expect(result.stdoutText == "11.000000\t1s b\nstatus \(status)\n")
        #expect(result.stderr == "")
    }
}

/// Runs pace on `arguments`, feeds it `input` through a pipe that then stays
/// open, waits until pace has read all of it (the pipe is empty), and sends
/// `signal`. Returns pace's stdout followed by `status N`, and its stderr. A
/// pace that ignores the signal fails the test (no status) instead of hanging it.
private func runInterrupted(_ arguments: [String], input: String, signal: Int32) throws -> PaceResult {
    let pace = try PipedPace(arguments)
    pace.write(input)
    #expect(pace.waitUntilInputDrained())
    kill(pace.pid, signal)
    let end = pace.finish(timeout: 5, closingInput: false)
    let status = end.status.map { "status \($0)\n" } ?? "pace did not exit\n"
    return PaceResult(stdout: end.output + Array(status.utf8), stderr: end.errors, status: 0)
}
