// The live loop on a scripted clock, and its record file: `--record` writes
// each line with the instant live mode acted on, those instants are whole
// microseconds, and so a replay of the record gives the live output.

import Glibc
import Testing
import PaceCore
import PaceTesting

extension LiveLoopTests {
    // MARK: - Record

    @Test("--record writes every line read with its arrival time, 6 decimals, then a TAB")
    func recordFormat() {
        let run = runScripted(["--debounce", "10ms", "--record", "r"], [
            (ms(0), .input("first\n\nsame read\n")),
            (ms(20) + 999, .input("crlf\r\n")),
            (ms(1500), .input("last")),
            (ms(1600), .endOfInput),
        ], recording: true)
        // wallAtStart is 1795953600.123456789: floored to 1795953600.123456.
        #expect(run.record == """
            1795953600.123456\tfirst
            1795953600.123456\t
            1795953600.123456\tsame read
            1795953600.143457\tcrlf\r
            1795953601.723456\tlast

            """)
        #expect(run.report.end == .endOfInput)
    }

    @Test("a record file that cannot be written ends the run with its name")
    func recordWriteFailure() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        defer { close(full) }
        let run = runScripted(["--debounce", "10ms", "--record", "out.rec"], [
            (ms(0), .input("a\n")),
            (ms(100), .endOfInput),
        ], recordFD: full)
        #expect(run.report.end == .outputFailed(target: "out.rec", errno: ENOSPC))
    }

    // MARK: - Quantization

    @Test("live mode acts on the microseconds it records")
    func quantization() {
        // Starting on a whole second: a arrives 0.9 µs in (recorded .000000),
        // b 300.0001 ms in (recorded .300000). 299.9992 ms apart on the
        // monotonic clock, so inside a 300 ms window; exactly 300 ms apart
        // in the record, where a's timer (due at .300000) fires before b.
        // The wake-up comes late, after b arrived: b's arrival fires it.
        let second: Instant = 1_795_953_600_000_000_000
        let run = runScripted(["--debounce", "300ms", "--record", "r"], [
            (900, .input("a\n")),
            (ms(300) + 100, .input("b\n")),
            (ms(2000), .endOfInput),
        ], lateness: ms(1), wallAtStart: second, recording: true)
        #expect(run.emissions == [
            Emitted(time: second + ms(300), "a"),
            Emitted(time: second + ms(600), "b"),
        ])
        #expect(run.record == "1795953600.000000\ta\n1795953600.300000\tb\n")
    }

    @Test("replaying the record gives the live output, byte for byte",
          arguments: [["--throttle-last", "100ms"], ["--debounce", "100ms", "--key-field", "2"],
                      ["--leading", "100ms"], ["--leading", "100ms", "--trailing"], ["--throttle", "100ms"],
                      ["--debounce", "40ms", "--max-wait", "100ms"]])
    func recordReplaysExactly(_ policy: [String]) throws {
        // wallAtStart ends in 789 ns, so an arrival 100 ns in is recorded 889
        // ns early, and one 100 ms - 800 ns after it 89 ns early: 99.9992 ms
        // apart as they arrived, 100 ms apart as recorded. Each policy reaches
        // its 100 ms boundary at such a pair; acting on nanoseconds, every one
        // of them would part from its replay.
        let nearlyWindow = ms(100) - 800
        let burst: [Nanoseconds] = [100, ms(30) + 100, ms(60) + 100, ms(90) + 100, 100 + nearlyWindow]
        let pair: [Nanoseconds] = [ms(2000) + 100, ms(2000) + 100 + nearlyWindow, ms(2200)]
        var steps: [(at: Nanoseconds, step: ScriptedClock.Step)] = burst.enumerated().map { i, t in (t, .input("b\(i) k0\n")) }
        steps += [(pair[0], .input("p0 k1\n")), (pair[1], .input("p1 k1\n")), (pair[2], .input("p2 k0\n"))]
        steps.append((ms(4000), .endOfInput))
        let arguments = policy + ["--emit-time", "--record", "r"]
        let live = runScripted(arguments, steps, lateness: ms(1), recording: true)
        let record = try #require(live.record)

        guard case let .success(.run(replay)) = parseArguments(policy + ["--emit-time", "--replay", "--time-format", "record"]) else {
            Issue.record("bad arguments")
            return
        }
        let input = ScriptedClock.Pipe()
        let output = ScriptedClock.Pipe()
        var recordBytes = record
        recordBytes.withUTF8 { bytes in _ = write(input.writer, bytes.baseAddress, bytes.count) }
        close(input.writer)
        var reader = LineReader(fd: input.reader)
        let report = runReplay(replay, defaultYear: 2026, input: &reader, outputFD: output.writer, signals: .none)
        close(output.writer)
        #expect(report.end == .endOfInput)
        let replayed = output.readAll()
        close(input.reader)
        close(output.reader)

        // Nothing was pending at end of input (the last timer is due long
        // before it), so even the emission times agree.
        let liveOutput = live.emissions.map { secondsString($0.time) + "\t" + String(decoding: $0.line, as: UTF8.self) + "\n" }.joined()
        #expect(replayed == liveOutput)
        #expect(!liveOutput.isEmpty)
    }

    @Test("the timeline floors to microseconds and wakes on the microsecond a deadline is reached")
    func timeline() {
        let timeline = LiveTimeline(wallAtStart: 1_000_000_000_500, monotonicAtStart: 40)
        #expect(timeline.instant(atMonotonic: 40) == 1_000_000_000_000)
        #expect(timeline.instant(atMonotonic: 539) == 1_000_000_000_000)
        #expect(timeline.instant(atMonotonic: 540) == 1_000_000_001_000)
        // A deadline on a whole microsecond: wake exactly when the clock gets there.
        #expect(timeline.monotonic(reaching: 1_000_000_001_000) == 540)
        // A deadline inside a microsecond: the first instant at or after it
        // is the next whole microsecond.
        #expect(timeline.monotonic(reaching: 1_000_000_001_001) == 1_540)
        #expect(timeline.instant(atMonotonic: timeline.monotonic(reaching: 1_000_000_001_001)) >= 1_000_000_001_001)
        // Negative instants floor downwards.
        let early = LiveTimeline(wallAtStart: -1, monotonicAtStart: 0)
        #expect(early.instant(atMonotonic: 0) == -1_000)
        // A saturated deadline does not trap.
        #expect(timeline.monotonic(reaching: .max) > Instant(nanoseconds: .max / 2))
    }
}
