// `--resolve-after`: exact cases, written out by hand (times in ms). Each
// names the rule of SPEC's Episodes it pins down; EpisodeTests holds the
// same rules against a reference on random streams.

@testable import PaceCore
import PaceTesting
import Testing

private let ms: Int64 = 1_000_000

private func events(_ list: [(Int64, String, String)]) -> [ReferenceEvent] {
    list.map { ReferenceEvent(time: Instant($0.0 * ms), key: $0.1, line: $0.2) }
}

private func out(_ list: [(Int64, String, Int64, EpisodeMark)]) -> [Emitted] {
    list.map { Emitted(time: Instant($0.0 * ms), line: Array($0.1.utf8), count: $0.2, mark: $0.3) }
}

/// A sink whose write of a resolved line fails, as a write a second signal
/// interrupts does.
private struct FailingOnResolved: LineSink {
    var base = RecordingSink()
    mutating func emit(_ emission: Emission) throws(OutputError) {
        if emission.mark == .resolved { throw .interrupted(linesNotWritten: 0) }
        try base.emit(emission)
    }
}

@Suite struct EpisodeCaseTests {
    // The resolution is decided, and traced, before its line is written: a
    // write that fails leaves it counted, as an emitted line is. A window
    // of 1 leaves the key idle before Q ends: its episode alone keeps it.
    @Test(arguments: [10, 1] as [Int64]) func aResolutionWhoseWriteFailsIsCounted(window: Int64) throws {
        var scheduler = Scheduler(policy: ThrottleFirst<EventNumber>(window: Nanoseconds(window * ms)),
                                  keys: OneKey<ThrottleFirst<EventNumber>.State>.self,
                                  sink: Counted(FailingOnResolved()), observer: NoObserver(),
                                  resolveAfter: Nanoseconds(3 * ms))
        let line = Array("L1".utf8)
        try line.withUnsafeBytes { try scheduler.send($0, key: .empty, at: 0, number: 1, borrowing: false) }
        #expect(throws: OutputError.interrupted(linesNotWritten: 0)) { try scheduler.advance(to: Instant(5 * ms)) }
        let stats = scheduler.stats
        #expect(stats.episodesOpened == 1)
        #expect(stats.episodesResolved == 1)
        #expect(stats.openEpisodes == 0)
        #expect(scheduler.takeSink().base.base.emissions == out([(0, "L1", 1, .first)]))
    }

    // The window (10) outlives Q (3): the episode closes at 5 with the drop
    // it owes; a drop at 8, with no episode open, is owed to the next
    // output line (12), which opens a new episode.
    @Test func aThrottleWindowOutlivingQ() {
        let run = runEpisodes(ThrottleFirst(window: Nanoseconds(10 * ms)), quiet: Nanoseconds(3 * ms), keyed: false,
                              events: events([(0, "", "L1"), (2, "", "L2"), (8, "", "L3"), (12, "", "L4")]))
        #expect(run.out == out([(0, "L1", 1, .first), (5, "L2", 1, .resolved), (12, "L4", 2, .first),
                                (15, "L4", 0, .resolved)]))
    }

    // T = max(t + Q, e): the pending line goes out at 14, after t + Q = 7;
    // the resolved line follows it at 14.
    @Test func debouncePendingPastQ() {
        let run = runEpisodes(Debounce(window: Nanoseconds(10 * ms), maxWait: nil), quiet: Nanoseconds(3 * ms),
                              keyed: false, events: events([(0, "", "L1"), (4, "", "L2")]))
        #expect(run.out == out([(14, "L2", 2, .first), (14, "L2", 0, .resolved)]))
    }

    @Test func rateBacklogPastQ() {
        let rate = Rate<EventNumber>(rate: CellRate(count: 1, per: Nanoseconds(10 * ms), burst: 1))
        let run = runEpisodes(rate, quiet: Nanoseconds(5 * ms), keyed: false,
                              events: events([(0, "", "L1"), (1, "", "L2"), (2, "", "L3")]))
        #expect(run.out == out([(0, "L1", 1, .first), (10, "L2", 1, .repeat), (20, "L3", 1, .repeat),
                                (20, "L3", 0, .resolved)]))
    }

    // Two keys resolving at 7: in input order of their last lines (b's L2
    // before a's L3), whichever episode opened first.
    @Test func twoKeysResolvingAtOneInstant() {
        let run = runEpisodes(ThrottleFirst(window: Nanoseconds(10 * ms)), quiet: Nanoseconds(5 * ms), keyed: true,
                              events: events([(1, "a", "L1"), (2, "b", "L2"), (2, "a", "L3")]))
        #expect(run.out == out([(1, "L1", 1, .first), (2, "L2", 1, .first), (7, "L2", 0, .resolved),
                                (7, "L3", 1, .resolved)]))
    }

    // Both keys' pending lines and both resolutions due at 5: a's resolved
    // line takes its line's place, after a's own output and before b's.
    @Test func aResolutionArmedByAnEmissionAtItsInstant() {
        let run = runEpisodes(Debounce(window: Nanoseconds(5 * ms), maxWait: nil), quiet: Nanoseconds(5 * ms),
                              keyed: true, events: events([(0, "a", "L1"), (0, "b", "L2")]))
        #expect(run.out == out([(5, "L1", 1, .first), (5, "L1", 0, .resolved), (5, "L2", 1, .first),
                                (5, "L2", 0, .resolved)]))
    }

    // Live end at 5: open episodes close at once, stamped 5, in the order
    // of their keys' last events (b's at 1, a's at 2).
    @Test func liveEndClosesInTheOrderOfLastEvents() {
        let run = runEpisodes(ThrottleFirst(window: Nanoseconds(10 * ms)), quiet: Nanoseconds(100 * ms), keyed: true,
                              events: events([(0, "a", "L1"), (1, "b", "L2"), (2, "a", "L3")]),
                              liveEnd: Instant(5 * ms))
        #expect(run.out == out([(0, "L1", 1, .first), (1, "L2", 1, .first), (5, "L2", 0, .resolved),
                                (5, "L3", 1, .resolved)]))
        #expect(run.quietAtEnd)
    }

    // Live end at 3 with lines pending: they go out first, then the
    // episodes they opened close.
    @Test func liveEndAfterThePendingLines() {
        let run = runEpisodes(Debounce(window: Nanoseconds(10 * ms), maxWait: nil), quiet: Nanoseconds(100 * ms),
                              keyed: true, events: events([(0, "a", "L1"), (1, "b", "L2")]), liveEnd: Instant(3 * ms))
        #expect(run.out == out([(3, "L1", 1, .first), (3, "L2", 1, .first), (3, "L1", 0, .resolved),
                                (3, "L2", 0, .resolved)]))
    }

    // Replay's end: the clock runs on to every episode's T.
    @Test func replayEndRunsTheClockOn() {
        let run = runEpisodes(Leading(window: Nanoseconds(10 * ms)), quiet: Nanoseconds(60 * ms), keyed: true,
                              events: events([(0, "a", "L1"), (1, "b", "L2"), (2, "a", "L3")]))
        #expect(run.out == out([(0, "L1", 1, .first), (1, "L2", 1, .first), (61, "L2", 0, .resolved),
                                (62, "L3", 1, .resolved)]))
        #expect(run.stats.peakOpenEpisodes == 2)
        #expect(run.heldKeysAtEnd == 0)
    }

    // The end of time (Int64 nanoseconds, 2262): a T at or past it is
    // held by no timer, but once replay's clock has run to the end, the
    // episodes still open close there, in the order of their keys' last
    // events (SPEC: every episode closes; hostile round 3 found them lost).
    // A backlog pinned there still held L3 and L4 when L2 went out at the
    // episode's T (also pinned there): that was a crash.
    @Test func resolutionAtTheEndOfTime() {
        let e = Instant.max.nanoseconds - 5 * ms
        let rate = Rate<EventNumber>(rate: CellRate(count: 1, per: Nanoseconds(10 * ms), burst: 1))
        let backlog = runEpisodes(rate, quiet: Nanoseconds(5 * ms), keyed: true, events: ["L1", "L2", "L3", "L4"].map {
            ReferenceEvent(time: Instant(e), key: "a", line: $0)
        })
        #expect(backlog.out == [
            Emitted(time: Instant(e), line: Array("L1".utf8), count: 1, mark: .first),
            Emitted(time: .max, line: Array("L2".utf8), count: 1, mark: .repeat),
            Emitted(time: .max, line: Array("L3".utf8), count: 1, mark: .repeat),
            Emitted(time: .max, line: Array("L4".utf8), count: 1, mark: .repeat),
            Emitted(time: .max, line: Array("L4".utf8), count: 0, mark: .resolved),
        ])
        // Every line at the end of time itself: the windows, pinned there,
        // have ended at once, so every line passes; then both resolve.
        let throttle = runEpisodes(ThrottleFirst(window: Nanoseconds(1_000 * ms)), quiet: Nanoseconds(1_000 * ms),
                                   keyed: true, events: [
            ReferenceEvent(time: .max, key: "a", line: "L1"), ReferenceEvent(time: .max, key: "b", line: "L2"),
            ReferenceEvent(time: .max, key: "a", line: "L3"), ReferenceEvent(time: .max, key: "b", line: "L4"),
        ])
        #expect(throttle.out == [
            Emitted(time: .max, line: Array("L1".utf8), count: 1, mark: .first),
            Emitted(time: .max, line: Array("L2".utf8), count: 1, mark: .first),
            Emitted(time: .max, line: Array("L3".utf8), count: 1, mark: .repeat),
            Emitted(time: .max, line: Array("L4".utf8), count: 1, mark: .repeat),
            Emitted(time: .max, line: Array("L3".utf8), count: 0, mark: .resolved),
            Emitted(time: .max, line: Array("L4".utf8), count: 0, mark: .resolved),
        ])
    }

    // A key with an open episode is remembered until it closes, though its
    // policy (a throttle-last window of 10, whose timer fires) is idle long
    // before.
    @Test func aKeyIsRememberedWhileItsEpisodeIsOpen() {
        var scheduler = Scheduler(policy: ThrottleLast<EventNumber>(window: Nanoseconds(10 * ms)),
                                  keys: ManyKeys<ThrottleLast<EventNumber>.State>.self,
                                  sink: Counted(RecordingSink()), observer: NoObserver(),
                                  resolveAfter: Nanoseconds(100 * ms))
        let line = Array("L1".utf8), key = Array("a".utf8)
        line.withUnsafeBytes { l in key.withUnsafeBytes { k in try! scheduler.send(l, key: k, at: 0, number: 1) } }
        try! scheduler.advance(to: Instant(50 * ms))
        #expect(scheduler.heldKeys == 1)
        try! scheduler.advance(to: Instant(100 * ms))
        #expect(scheduler.heldKeys == 0)
        #expect(scheduler.sink.base.emissions.map { $0.mark } == [EpisodeMark.first, .resolved])
    }
}
