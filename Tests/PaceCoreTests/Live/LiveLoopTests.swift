// The live loop on a scripted clock: timers fire while input idles and while
// it streams, end of input and signals release what is pending at once, and
// `--rate` keeps its pace after end of input. The record file and the whole
// microseconds live mode acts on are LiveRecordTests'.

import Glibc
import Testing
import PaceCore
import PaceTesting

/// Offsets in milliseconds.
func ms(_ value: Double) -> Nanoseconds { Nanoseconds(Int64((value * 1_000_000).rounded())) }

/// 2026-11-29T12:00:00.123456789Z: a wall clock with sub-microsecond digits.
private let wallAtStart: Instant = 1_795_953_600_123_456_789

/// The instant live mode gives something `offset` after the start.
private func liveInstant(_ offset: Nanoseconds) -> Instant {
    LiveTimeline(wallAtStart: wallAtStart, monotonicAtStart: 0).instant(atMonotonic: 0 + offset)
}

func runScripted(_ arguments: [String], _ steps: [(at: Nanoseconds, step: ScriptedClock.Step)],
                         lateness: Nanoseconds = 0, wallAtStart start: Instant = wallAtStart,
                         recordFD: Int32? = nil, recording: Bool = false) -> LiveRun {
    LiveRun.scripted(arguments, steps, lateness: lateness, wallAtStart: start, recordFD: recordFD, recording: recording)
}

/// The monotonic offset the loop should wake at for a timer due at `instant`.
private func wake(at instant: Instant) -> Nanoseconds {
    let timeline = LiveTimeline(wallAtStart: wallAtStart, monotonicAtStart: 0)
    return timeline.monotonic(reaching: instant) - 0
}

@Suite("Live loop")
struct LiveLoopTests {
    @Test("a debounced line comes out when its timer is due while input is idle")
    func debounceFiresWhileIdle() {
        let run = runScripted(["--debounce", "100ms"], [
            (ms(0), .input("a\n")),
            (ms(1000), .endOfInput),
        ])
        #expect(run.emissions == [Emitted(time: liveInstant(0) + ms(100), "a")])
        #expect(run.report.end == .endOfInput)
        // Idle with no timer: a wait without deadline. Then one wake-up for
        // the timer, then no deadline again: no polling, no spinning.
        #expect(run.waits == [nil, wake(at: liveInstant(0) + ms(100)), nil])
    }

    @Test("a late wake-up still stamps a delayed line with its due time")
    func lateWakeUp() {
        let run = runScripted(["--debounce", "100ms"], [
            (ms(0), .input("a\n")),
            (ms(1000), .endOfInput),
        ], lateness: ms(3))
        #expect(run.emissions == [Emitted(time: liveInstant(0) + ms(100), "a")])
    }

    @Test("a throttle-last window's end fires during a steady stream")
    func throttleLastWindowEndsWhileStreaming() {
        // An event every 30 ms, from 0 to 300 ms: the windows end at 100, 200,
        // 300 and 400 ms while lines keep coming.
        var steps: [(at: Nanoseconds, step: ScriptedClock.Step)] = (0...10).map { i in (ms(Double(30 * i)), .input("e\(i)\n")) }
        steps.append((ms(1000), .endOfInput))
        let run = runScripted(["--throttle-last", "100ms"], steps, lateness: ms(2))
        let start = liveInstant(0)
        #expect(run.emissions == [
            Emitted(time: start, "e0"),
            Emitted(time: start + ms(100), "e3"),
            Emitted(time: start + ms(200), "e6"),
            Emitted(time: start + ms(300), "e9"),
            Emitted(time: start + ms(400), "e10"),
        ])
        #expect(run.report.end == .endOfInput)
    }

    @Test("a read that completes no line still moves the clock: a late timer fires there, not on a wait already past")
    func partialReadAdvancesClock() {
        // The wake-up for the 100 ms timer would come at 200 ms; a partial
        // line is read at 150 ms first. Without advancing there, the loop
        // would next wait for a deadline already passed.
        let run = runScripted(["--debounce", "100ms"], [
            (ms(0), .input("a\n")),
            (ms(150), .input("b")),
            (ms(400), .endOfInput),
        ], lateness: ms(100))
        #expect(run.emissions == [
            Emitted(time: liveInstant(0) + ms(100), "a"),
            Emitted(time: liveInstant(ms(400)), "b"),
        ])
        #expect(run.waits == [nil, wake(at: liveInstant(0) + ms(100)), nil])
    }

    @Test("max-wait releases a line during a burst that never pauses")
    func maxWaitWhileStreaming() {
        var steps: [(at: Nanoseconds, step: ScriptedClock.Step)] = (0..<20).map { i in (ms(Double(20 * i)), .input("e\(i)\n")) }
        steps.append((ms(1000), .endOfInput))
        let run = runScripted(["--debounce", "50ms", "--max-wait", "150ms"], steps)
        let start = liveInstant(0)
        // Runs start at 0, 160 and 320 ms (the first event after each
        // emission); each is cut at its start + 150 ms; the last event (380
        // ms) is released 50 ms after it.
        #expect(run.emissions == [
            Emitted(time: start + ms(150), "e7"),
            Emitted(time: start + ms(310), "e15"),
            Emitted(time: start + ms(430), "e19"),
        ])
    }

    @Test("end of input emits every pending line at once, stamped with the end, in clock order")
    func endOfInputReleasesPending() {
        let run = runScripted(["--debounce", "1s", "--key-field", "1"], [
            (ms(0), .input("k1 a\n")),
            (ms(50), .input("k2 b\n")),
            // The last line lacks its newline: it is read at end of input.
            (ms(100), .input("k1 c\nk3 d")),
            (ms(250), .endOfInput),
        ])
        let end = liveInstant(ms(250))
        // Due at 1.05 s (k2), 1.1 s (k1); k3's line arrives at the end.
        #expect(run.emissions == [
            Emitted(time: end, "k2 b"),
            Emitted(time: end, "k1 c"),
            Emitted(time: end, "k3 d"),
        ])
        #expect(run.report.end == .endOfInput)
        #expect(run.report.scheduler.eventsIn == 4)
    }

    @Test("SIGTERM and SIGINT end input: pending lines come out at once, then the run reports the signal",
          arguments: [SIGTERM, SIGINT])
    func signalEndsInput(_ signal: Int32) {
        let run = runScripted(["--debounce", "10s"], [
            (ms(0), .input("a\n")),
            (ms(200), .signal(signal)),
        ])
        #expect(run.emissions == [Emitted(time: liveInstant(ms(200)), "a")])
        #expect(run.report.end == .signal(signal))
    }

    @Test("timers due before a signal fire at their own time first")
    func dueTimersBeforeSignal() {
        // The wake-up for the 100 ms timer comes late, after the signal.
        let run = runScripted(["--debounce", "100ms", "--key-field", "1"], [
            (ms(0), .input("x a\n")),
            (ms(50), .input("y b\n")),
            (ms(120), .signal(SIGINT)),
        ], lateness: ms(30))
        #expect(run.emissions == [
            Emitted(time: liveInstant(0) + ms(100), "x a"),
            Emitted(time: liveInstant(ms(120)), "y b"),
        ])
    }

    @Test("empty lines are events in live mode, and counted")
    func emptyLinesAreEvents() {
        let run = runScripted(["--throttle", "10ms"], [
            (ms(0), .input("\n")),
            (ms(20), .input("\r\n")),
            (ms(40), .endOfInput),
        ])
        #expect(run.emissions.map(\.line) == [[], [0x0D]])
        #expect(run.report.scheduler.eventsIn == 2)
        #expect(run.report.emptyLines == 2)
    }

    @Test("stdout's reader going away ends the run quietly, with nothing more emitted")
    func outputClosed() {
        let run = runScripted(["--debounce", "1s"], [
            (ms(0), .input("a\n")),
            (ms(10), .outputClosed),
        ])
        #expect(run.emissions.isEmpty)
        #expect(run.report.end == .brokenPipe)
    }

    // MARK: - --rate after end of input

    @Test("--rate keeps its pace after end of input: each waiting line at its due time, then the run ends")
    func rateKeepsItsPace() {
        // 20 per s: a at once, b and c 50 and 100 ms later; input ends at 10 ms.
        let run = runScripted(["--rate", "20/s"], [
            (ms(0), .input("a\nb\nc\n")),
            (ms(10), .endOfInput),
        ])
        let start = liveInstant(0)
        #expect(run.emissions == [Emitted(time: start, "a"), Emitted(time: start + ms(50), "b"),
                                  Emitted(time: start + ms(100), "c")])
        #expect(run.report.end == .endOfInput)
        #expect(run.report.scheduler.peakBacklog == 2)
        // Idle, then b's due time (input ends first), then b's and c's: one
        // wake-up per line, and none for the full bucket once nothing waits.
        #expect(run.waits == [nil, wake(at: start + ms(50)), wake(at: start + ms(50)), wake(at: start + ms(100))])
    }

    @Test("--rate: lines whose due time has passed when end of input is read go out, then the run ends")
    func rateBacklogDueBeforeEndOfInputIsRead() {
        // 20 per s: a at once, b due at 50 ms, the bucket full again at
        // 100 ms. The wake-up for b comes late (a stopped or loaded pace),
        // after input has ended at 200 ms: the advance to 200 ms releases b
        // and forgets the key, so nothing is held and no timer is left to
        // wait for.
        let run = runScripted(["--rate", "20/s"], [
            (ms(0), .input("a\nb\n")),
            (ms(200), .endOfInput),
        ], lateness: ms(500))
        let start = liveInstant(0)
        #expect(run.emissions == [Emitted(time: start, "a"), Emitted(time: start + ms(50), "b")])
        #expect(run.report.end == .endOfInput)
        // Idle, then b's due time; then no wait at all (the scripted clock
        // records a wait without deadline after the script as an issue).
        #expect(run.waits == [nil, wake(at: start + ms(50))])
    }

    @Test("a signal while --rate's backlog waits after end of input emits the rest at once", arguments: [SIGTERM, SIGINT])
    func signalDuringRateBacklog(_ signal: Int32) {
        let run = runScripted(["--rate", "20/s"], [
            (ms(0), .input("a\nb\nc\nd\n")),
            (ms(10), .endOfInput),
            (ms(60), .signal(signal)),
        ])
        let start = liveInstant(0)
        // b was due at 50 ms; c and d (due at 100 and 150 ms) go out when the
        // signal comes, stamped with that time, in their order.
        #expect(run.emissions == [Emitted(time: start, "a"), Emitted(time: start + ms(50), "b"),
                                  Emitted(time: liveInstant(ms(60)), "c"), Emitted(time: liveInstant(ms(60)), "d")])
        #expect(run.report.end == .signal(signal))
    }

    @Test("stdout's reader going away while --rate's backlog waits ends the run with nothing more emitted")
    func outputClosedDuringRateBacklog() {
        let run = runScripted(["--rate", "20/s"], [
            (ms(0), .input("a\nb\nc\n")),
            (ms(10), .endOfInput),
            (ms(60), .outputClosed),
        ])
        let start = liveInstant(0)
        #expect(run.emissions == [Emitted(time: start, "a"), Emitted(time: start + ms(50), "b")])
        #expect(run.report.end == .brokenPipe)
    }

    @Test("--limit does not wait after end of input: it holds nothing")
    func limitEndsAtOnce() {
        let run = runScripted(["--limit", "1/s"], [
            (ms(0), .input("a\nb\n")),
            (ms(10), .endOfInput),
        ])
        #expect(run.emissions == [Emitted(time: liveInstant(0), "a")])
        #expect(run.report.end == .endOfInput)
        // The full bucket's timer (1 s) only forgets the key: it is never
        // waited for, before or after end of input.
        #expect(run.waits == [nil, nil])
    }
}
