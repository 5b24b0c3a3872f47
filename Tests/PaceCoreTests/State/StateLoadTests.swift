// A state saved by one scheduler and loaded by another, on the live
// timeline, which is the `--record` clock: a saved instant is a wall-clock
// time, so a run that starts later (another timeline, its own start) finds
// the windows that are still open and not those that ended while it was
// down. Time is the test's: instants passed to the scheduler, no clock read.

@testable import PaceCore
import PaceTesting
import Testing

private typealias Keyed<P: Policy> = Scheduler<P, ManyKeys<P.State>, Counted<RecordingSink>, NoObserver>
    where P.Payload == EventNumber

private func send<P: Policy>(_ scheduler: inout Keyed<P>, _ line: String, key: String, at t: Instant, _ n: EventNumber)
    where P.Payload == EventNumber {
    let bytes = Array(line.utf8), keyBytes = Array(key.utf8)
    bytes.withUnsafeBytes { l in keyBytes.withUnsafeBytes { k in try! scheduler.send(l, key: k, at: t, number: n) } }
}

struct StateLoadTests {
    @Test("windows open at the start of the next run hold; those that ended while pace was down do not")
    func windowsAcrossRuns() {
        let second: Nanoseconds = 1_000_000_000
        let policy = ThrottleFirst<EventNumber>(window: 10 * second)
        // The first run's timeline starts at wall clock 1000 s.
        let start = Instant(nanoseconds: 1_000 * 1_000_000_000)
        var first = Keyed(policy: policy, keys: ManyKeys<ThrottleFirst<EventNumber>.State>.self, sink: Counted(RecordingSink()))
        send(&first, "a1", key: "a", at: start, 1)
        send(&first, "b1", key: "b", at: start.saturatingAdd(5 * second), 2)
        send(&first, "a2", key: "a", at: start.saturatingAdd(6 * second), 3)
        send(&first, "b2", key: "b", at: start.saturatingAdd(7 * second), 4)
        send(&first, "b3", key: "b", at: start.saturatingAdd(8 * second), 5)
        let saved = first.snapshot(at: start.saturatingAdd(8 * second), heldLinesOwed: false)
        #expect(saved.count == 2)
        let flags = StateFlags(Configuration(policy: .throttle(10 * second)), keyFieldText: Array("1".utf8))
        let loaded = try! StateFormat.decode(StateFormat.encode(saved, flags: flags), flags: flags).get()

        // Down from 1008 s to 1012 s: a's window (to 1010 s) ended, b's
        // (to 1015 s) is open; a still owes 1, b 2.
        let restart = start.saturatingAdd(12 * second)
        var next = Keyed(policy: policy, keys: ManyKeys<ThrottleFirst<EventNumber>.State>.self, sink: Counted(RecordingSink()))
        next.load(loaded, at: restart)
        #expect(next.heldKeys == 1)
        send(&next, "a3", key: "a", at: restart, 1)
        send(&next, "b4", key: "b", at: restart.saturatingAdd(2 * second), 2)
        send(&next, "b5", key: "b", at: start.saturatingAdd(15 * second), 3)
        let out = next.takeSink().base.emissions
        #expect(out == [Emitted(time: restart, line: Array("a3".utf8), count: 2),
                        Emitted(time: start.saturatingAdd(15 * second), line: Array("b5".utf8), count: 4)])
    }

    @Test("a loaded --limit bucket refills from its saved A")
    func bucketAcrossRuns() {
        let rate = CellRate(count: 1, per: 1_000, burst: 2)
        let policy = Limit<EventNumber>(rate: rate)
        var first = Keyed(policy: policy, keys: ManyKeys<Limit<EventNumber>.State>.self, sink: Counted(RecordingSink()))
        send(&first, "1", key: "k", at: 10_000, 1)
        send(&first, "2", key: "k", at: 10_000, 2)
        send(&first, "3", key: "k", at: 10_000, 3)
        let saved = first.snapshot(at: 10_000, heldLinesOwed: false)
        #expect(saved.states == [.bucket(arrival: ExactInstant(ceiling: 12_000, below: 0))])
        #expect(saved.owed == [1])
        var next = Keyed(policy: policy, keys: ManyKeys<Limit<EventNumber>.State>.self, sink: Counted(RecordingSink()))
        next.load(saved, at: 10_500)
        // A = 12000: the next token at 11000, the bucket full at 12000.
        send(&next, "4", key: "k", at: 10_999, 1)
        send(&next, "5", key: "k", at: 11_000, 2)
        send(&next, "6", key: "k", at: 11_000, 3)
        #expect(next.takeSink().base.emissions == [Emitted(time: 11_000, line: Array("5".utf8), count: 3)])
    }

    @Test("a held line is owed by a save that may outlive it, and not by the last one, after which it goes out")
    func heldLines() {
        let policy = ThrottleLast<EventNumber>(window: 100)
        var run = Keyed(policy: policy, keys: ManyKeys<ThrottleLast<EventNumber>.State>.self, sink: Counted(RecordingSink()))
        send(&run, "1", key: "k", at: 0, 1)
        send(&run, "2", key: "k", at: 10, 2)
        send(&run, "3", key: "k", at: 20, 3)
        #expect(run.snapshot(at: 20, heldLinesOwed: true).owed == [2])
        #expect(run.snapshot(at: 20, heldLinesOwed: false).owed == [0])
        #expect(run.snapshot(at: 20, heldLinesOwed: false).states == [.window(end: 100)])
        #expect(run.snapshot(at: 100, heldLinesOwed: false).count == 0)
    }

    @Test("a key idle at start but owing is remembered as a forgotten key, and its next line counts it")
    func idleOwing() {
        let policy = ThrottleFirst<EventNumber>(window: 100)
        var saved = StateSnapshot()
        saved.append(key: Array("k".utf8), state: nil, owed: 5)
        saved.append(key: Array("j".utf8), state: .window(end: 50), owed: 2)
        var run = Keyed(policy: policy, keys: ManyKeys<ThrottleFirst<EventNumber>.State>.self, sink: Counted(RecordingSink()))
        run.load(saved, at: 60)
        #expect(run.heldKeys == 0)
        #expect(run.snapshot(at: 60, heldLinesOwed: false).owed.sorted() == [2, 5])
        send(&run, "k1", key: "k", at: 70, 1)
        send(&run, "j1", key: "j", at: 70, 2)
        #expect(run.takeSink().base.emissions == [Emitted(time: 70, line: Array("k1".utf8), count: 6),
                                                   Emitted(time: 70, line: Array("j1".utf8), count: 3)])
    }
}
