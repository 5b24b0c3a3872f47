// Idle keys stay in the key table on a bounded list, and come back with a
// fresh state. These tests run keyed throttles over more keys than the list
// keeps, so keys are revived, evicted and re-inserted, and check emissions
// and the key counters against a plain per-key model. A throttle's timer only
// forgets, so its keys lapse and are forgotten when the count of active keys
// would pass its peak (Scheduler, "Lapsed keys"): the keys held are then at
// least the active ones and at most the peak.

@testable import PaceCore
import PaceTesting
import Testing

struct IdleKeysTests {
    @Test(arguments: [3, 500, 5_000])
    func keysThatComeBackBehaveAsNewKeys(keyCount: Int) {
        var rng = SplitMix64(seed: UInt64(keyCount))
        let window: Nanoseconds = 1_000
        var clock = TestClock(policy: ThrottleFirst<EventNumber>(window: window), keyed: true)
        // The model: each key's window end; a key is active while it is open.
        var windowEnd: [String: Instant] = [:]
        var expected: [Emitted] = []
        var peak = 0
        var t: Instant = 0
        for i in 0..<60_000 {
            t += Nanoseconds([0, 1, 10, 100][rng.below(4)])
            let key = "key\(rng.below(keyCount))"
            let line = "\(i) \(key)"
            windowEnd = windowEnd.filter { $0.value > t }
            if windowEnd[key] == nil {
                expected.append(Emitted(time: t, line))
                windowEnd[key] = t + window
            }
            peak = max(peak, windowEnd.count)
            clock.advance(to: t)
            clock.send(line, key: key)
            #expect(clock.heldKeys >= windowEnd.count)
            #expect(clock.heldKeys <= peak)
        }
        clock.finish()
        #expect(clock.emissions == expected)
        #expect(clock.heldKeys == 0)
        #expect(clock.stats.activeKeys == 0)
        #expect(clock.stats.peakActiveKeys == Int64(peak))
        #expect(clock.stats.distinctKeys == Int64(min(keyCount, 60_000)))
    }
}

/// Counts emissions without keeping them (a million would not fit nicely).
private struct CountingSink: LineSink {
    var count = 0
    mutating func emit(_ emission: Emission) throws(OutputError) { count += 1 }
}

struct IdleKeysMemoryTests {
    /// SPEC: memory follows the number of keys active within one window, not
    /// the number ever seen. A million keys, one event each, 100 ns apart,
    /// debounced over 1,000 ns: 10 are active at once (a key's timer, due
    /// as the tenth key after it comes, fires first). What stays
    /// allocated must follow those (plus the bounded list of idle keys the
    /// table keeps, 1,024 today), and the buffer that held one 1 MB line must
    /// be freed once its key is idle.
    ///
    /// Under a throttle, whose timer only forgets, the same holds with keys
    /// forgotten late: a new key would pass the peak of 10, so the key that
    /// lapsed as it came is forgotten then.
    @Test(arguments: [false, true])
    func aMillionShortLivedKeysLeaveMemoryBounded(timersOnlyForget: Bool) {
        if timersOnlyForget {
            aMillionShortLivedKeys(ThrottleFirst<EventNumber>(window: 1_000))
        } else {
            aMillionShortLivedKeys(Debounce<EventNumber>(window: 1_000))
        }
    }

    private func aMillionShortLivedKeys<P: Policy>(_ policy: P) where P.Payload == EventNumber {
        let keyCount = 1_000_000
        let window: Nanoseconds = 1_000
        let gap: Nanoseconds = 100
        let activeAtMost = Int(window / gap)
        let kept = 2_048
        var scheduler = Scheduler(policy: policy, keys: ManyKeys<P.State>.self, sink: CountingSink())
        var key = Array("key-0000000".utf8)
        let huge = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var heldAtMost = 0
        for i in 0..<keyCount {
            var n = i
            for d in (4..<key.count).reversed() {
                key[d] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            }
            let t = Instant(nanoseconds: Int64(i) * gap.count)
            key.withUnsafeBytes { k in
                if i == keyCount / 2 {
                    huge.withUnsafeBytes { try! scheduler.send($0, key: k, at: t, number: EventNumber(i + 1)) }
                } else {
                    try! scheduler.send(k, key: k, at: t, number: EventNumber(i + 1))
                }
            }
            heldAtMost = max(heldAtMost, scheduler.heldKeys)
        }
        let footprint = scheduler.footprint
        #expect(heldAtMost == activeAtMost)
        #expect(scheduler.stats.peakActiveKeys == Int64(activeAtMost))
        #expect(footprint.slots <= kept, "slots allocated")
        #expect(footprint.tableKeys <= kept, "keys in the key table")
        // Every buffer the size of its line; the 1 MB one is gone.
        #expect(footprint.lineBytes <= kept * 128, "bytes held for pending lines")
        try! scheduler.finish()
        #expect(scheduler.sink.count == keyCount)
        #expect(scheduler.heldKeys == 0)
    }
}

/// `--count` remembers the counts of at most ForgottenCounts' capacity of
/// idle keys (SPEC). A lapsed key keeps its count in its slot, so once the
/// keys in the table and the remembered ones pass that capacity, lapsed keys
/// are forgotten on time, as they were, and a count is given up where it was.
/// Here the capacity is 10: 1,035 keys each let one line through and drop
/// one (each owes 1), an hour's window; then k0 comes back. Its window is
/// over, so every key is idle, k0 first: of the 1,035 idle keys owing a
/// count, the 10 last idle keep theirs (the bound counts the idle list's
/// keys too), and 1,025 are given up, k0's among them.
struct LapsedKeysOwingCountsTests {
    @Test func pastTheBoundLapsedKeysAreForgottenOnTime() throws {
        let hour: Nanoseconds = 3_600_000_000_000
        let keyCount = idleKeysKept + 11
        var scheduler = Scheduler(
            policy: ThrottleFirst<EventNumber>(window: hour),
            keys: ManyKeys<ThrottleFirst<EventNumber>.State>.self,
            sink: Counted(RecordingSink(), forgottenCapacity: 10))
        var number: EventNumber = 0
        for k in 0..<keyCount {
            for word in ["a", "b"] {
                number += 1
                var line = "k\(k) \(word)"
                var key = "k\(k)"
                try line.withUTF8 { l in
                    try key.withUTF8 { try scheduler.send(UnsafeRawBufferPointer(l), key: UnsafeRawBufferPointer($0),
                                                          at: 0, number: number) }
                }
            }
        }
        var back = "k0 back"
        var k0 = "k0"
        number += 1
        try back.withUTF8 { l in
            try k0.withUTF8 { try scheduler.send(UnsafeRawBufferPointer(l), key: UnsafeRawBufferPointer($0),
                                                 at: Instant(nanoseconds: hour.count + 1), number: number) }
        }
        #expect(scheduler.stats.uncountedDiscards == 1_025)
        try scheduler.finish()
        let emissions = scheduler.sink.base.emissions
        #expect(emissions.count == keyCount + 1)
        #expect(emissions.dropLast().allSatisfy { $0.count == 1 })
        // k0's dropped line went uncounted: its line counts only itself.
        #expect(emissions.last == Emitted(time: Instant(nanoseconds: hour.count + 1), line: Array(back.utf8), count: 1))
        // At the end k0 is idle again, owing nothing: it pushes k11, whose
        // count was given up, out of the idle list; nothing more is lost.
        #expect(scheduler.stats.uncountedDiscards == 1_025)
        #expect(scheduler.stats.peakActiveKeys == Int64(keyCount))
    }
}

/// SPEC's bound on the idle keys remembered with a count is the total: the
/// ones still in the key table (on the idle list, whose slots keep their
/// counts) and those ForgottenCounts keeps after them. Here it is 3: 1,034
/// keys each let one line through and drop one (each owes 1), one key after
/// another, each idle before the next comes; then each comes back once. Only
/// the 3 keys last idle still have their count; every other discard went
/// uncounted. (Counting the idle list's 1,024 on top, 1,027 keys came back
/// with their count, and 7 discards went uncounted.)
struct IdleKeysOwingCountsBoundTests {
    @Test func theBoundCountsTheIdleListsKeysToo() throws {
        let bound = 3
        let keyCount = idleKeysKept + 10
        let window: Nanoseconds = 10
        var scheduler = Scheduler(
            policy: ThrottleFirst<EventNumber>(window: window),
            keys: ManyKeys<ThrottleFirst<EventNumber>.State>.self,
            sink: Counted(RecordingSink(), forgottenCapacity: bound))
        var number: EventNumber = 0
        func send(_ text: String, key: String, at t: Int64) throws {
            number += 1
            var line = text
            var key = key
            try line.withUTF8 { l in
                try key.withUTF8 { try scheduler.send(UnsafeRawBufferPointer(l), key: UnsafeRawBufferPointer($0),
                                                      at: Instant(nanoseconds: t), number: number) }
            }
        }
        // Key k at 100 k ns: its window is over (and it idle) when k + 1 comes.
        for k in 0..<keyCount {
            try send("k\(k) a", key: "k\(k)", at: Int64(k) * 100)
            try send("k\(k) b", key: "k\(k)", at: Int64(k) * 100)
        }
        // All back at one instant: each key's window is open again until
        // the end, so none goes idle and pushes another off the list.
        let back = Int64(keyCount) * 100 + 1_000
        for k in 0..<keyCount { try send("k\(k) back", key: "k\(k)", at: back) }
        try scheduler.finish()
        let counts = scheduler.sink.base.emissions.filter { $0.line.suffix(4) == Array("back".utf8) }.map(\.count)
        #expect(counts == Array(repeating: 1, count: keyCount - bound) + Array(repeating: 2, count: bound))
        #expect(scheduler.stats.uncountedDiscards == Int64(keyCount - bound))
    }
}
