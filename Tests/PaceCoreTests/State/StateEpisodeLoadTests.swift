// Open episodes saved by one run and loaded by the next (`--state` with
// `--resolve-after`), on the test's timeline (times in ms): the overdue ones
// resolve at once at start, in the order of their T, stamped with the
// start; the others at their T, unless an event of their key comes first
// (then `repeat`); the resolved line carries what its key owed.

@testable import PaceCore
import PaceTesting
import Testing

private let ms: Int64 = 1_000_000
private typealias Episodic = Scheduler<ThrottleFirst<EventNumber>, ManyKeys<ThrottleFirst<EventNumber>.State>,
                                       Counted<RecordingSink>, NoObserver>

private func scheduler() -> Episodic {
    Scheduler(policy: ThrottleFirst(window: Nanoseconds(1_000 * ms)), keys: ManyKeys<ThrottleFirst<EventNumber>.State>.self,
              sink: Counted(RecordingSink()), observer: NoObserver(),
              resolveAfter: Nanoseconds(100 * ms))
}

private func send(_ scheduler: inout Episodic, _ line: String, key: String, at t: Int64, _ n: EventNumber) {
    let bytes = Array(line.utf8), keyBytes = Array(key.utf8)
    bytes.withUnsafeBytes { l in keyBytes.withUnsafeBytes { k in try! scheduler.send(l, key: k, at: Instant(t * ms), number: n) } }
}

private func out(_ list: [(Int64, String, Int64, EpisodeMark)]) -> [Emitted] {
    list.map { Emitted(time: Instant($0.0 * ms), line: Array($0.1.utf8), count: $0.2, mark: $0.3) }
}

/// a: T 50, a window to 100, owes 2; b: T 20, idle; c: T 150, idle, owes 1.
/// In the file's order a, b, c: not the order of their T.
private func saved() -> StateSnapshot {
    var snapshot = StateSnapshot()
    snapshot.append(key: Array("a".utf8), state: .window(end: Instant(100 * ms)), owed: 2,
                    episode: (Instant(50 * ms), Array("A".utf8)))
    snapshot.append(key: Array("b".utf8), state: nil, owed: 0, episode: (Instant(20 * ms), Array("B".utf8)))
    snapshot.append(key: Array("c".utf8), state: nil, owed: 1, episode: (Instant(150 * ms), Array("C".utf8)))
    return snapshot
}

struct StateEpisodeLoadTests {
    @Test("overdue episodes resolve at start, in the order of their T, stamped with the start; the rest at T")
    func overdueAndDue() throws {
        var next = scheduler()
        next.load(saved(), at: Instant(60 * ms))
        try next.resolveOverdueEpisodes(at: Instant(60 * ms))
        try next.advance(to: Instant(149 * ms))
        // a (its window lapsed, forgotten lazily) and c, remembered until its episode closes.
        #expect(next.heldKeys == 2)
        try next.advance(to: Instant(150 * ms))
        #expect(next.heldKeys == 1)
        #expect(next.takeSink().base.emissions
                == out([(60, "B", 0, .resolved), (60, "A", 2, .resolved), (150, "C", 1, .resolved)]))
    }

    @Test("an event of a reopened key before its T goes on with the episode: `repeat`, with what it owed")
    func repeatBeforeT() throws {
        var next = scheduler()
        next.load(saved(), at: Instant(60 * ms))
        try next.resolveOverdueEpisodes(at: Instant(60 * ms))
        // a's window (to 100) holds and its episode closed at 60: A3 is
        // owed to a's next output line, and resolves nothing.
        send(&next, "A3", key: "a", at: 90, 1)
        send(&next, "C2", key: "c", at: 120, 2)
        try next.finish()
        #expect(next.takeSink().base.emissions
                == out([(60, "B", 0, .resolved), (60, "A", 2, .resolved), (120, "C2", 2, .repeat),
                        (220, "C2", 0, .resolved)]))
    }

    @Test("a save at exit keeps each open episode with its T, last line and owed discards, in last-event order")
    func savedAtExit() {
        var first = scheduler()
        send(&first, "a1", key: "a", at: 0, 1)
        send(&first, "b1", key: "b", at: 10, 2)
        send(&first, "a2", key: "a", at: 20, 3)
        let snapshot = first.snapshot(at: Instant(50 * ms), heldLinesOwed: false)
        var expected = StateSnapshot()
        expected.append(key: Array("b".utf8), state: .window(end: Instant(1_010 * ms)), owed: 0,
                        episode: (Instant(110 * ms), Array("b1".utf8)))
        expected.append(key: Array("a".utf8), state: .window(end: Instant(1_000 * ms)), owed: 1,
                        episode: (Instant(120 * ms), Array("a2".utf8)))
        #expect(snapshot == expected)
    }

    @Test("a key holding a line at exit: it goes out then, so its episode is saved with T = max(t + Q, exit)")
    func pendingAtExit() throws {
        var first = Scheduler(policy: Debounce<EventNumber>(window: Nanoseconds(1_000 * ms), maxWait: nil),
                              keys: ManyKeys<Debounce<EventNumber>.State>.self,
                              sink: Counted(RecordingSink()), observer: NoObserver(),
                              resolveAfter: Nanoseconds(100 * ms))
        for (n, (line, t)) in [("k1", Int64(0)), ("k2", 250), ("k1 again", 300)].enumerated() {
            let bytes = Array(line.utf8), key = Array(line.prefix(2).utf8)
            try bytes.withUnsafeBytes { l in try key.withUnsafeBytes { k in
                try first.send(l, key: k, at: Instant(t * ms), number: EventNumber(n + 1))
            } }
        }
        // A periodic save: the held lines are owed, no episode is open yet.
        let periodic = first.snapshot(at: Instant(380 * ms), heldLinesOwed: true)
        #expect(periodic.episodes == [nil, nil])
        #expect(Set((0..<periodic.count).map { String(decoding: periodic.key($0), as: UTF8.self) + " \(periodic.owed[$0])" })
                == ["k1 2", "k2 1"])
        // The exit's: k2's T is the exit (250 + Q < 380), k1's t + Q (400).
        var exit = StateSnapshot()
        exit.append(key: Array("k2".utf8), state: nil, owed: 0, episode: (Instant(380 * ms), Array("k2".utf8)))
        exit.append(key: Array("k1".utf8), state: nil, owed: 0, episode: (Instant(400 * ms), Array("k1 again".utf8)))
        #expect(first.snapshot(at: Instant(380 * ms), heldLinesOwed: false) == exit)
        try first.finish(emittingAt: Instant(380 * ms), closingEpisodes: false)
        #expect(first.takeSink().base.emissions
                == out([(380, "k2", 1, .first), (380, "k1 again", 2, .first)]))
    }
}
