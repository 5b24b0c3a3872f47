// Idle keys stay in the key table on a bounded list, and come back with a
// fresh state. These tests run keyed throttles over more keys than the list
// keeps, so keys are revived, evicted and re-inserted, and check emissions
// and the key counters against a plain per-key model.

@testable import PaceCore
import PaceTesting
import Testing

struct IdleKeysTests {
    @Test(arguments: [3, 500, 5_000])
    func keysThatComeBackBehaveAsNewKeys(keyCount: Int) {
        var rng = SplitMix64(seed: UInt64(keyCount))
        let window: Nanoseconds = 1_000
        var scheduler = Scheduler(policy: ThrottleFirst<EventNumber>(window: window), keyed: true,
                                  sink: RecordingSink(), countDistinctKeys: true)
        // The model: each key's window end; a key is active while it is open.
        var windowEnd: [String: Instant] = [:]
        var expected: [Emission] = []
        var peak = 0
        var t: Instant = 0
        for i in 0..<60_000 {
            t += Instant([0, 1, 10, 100][rng.below(4)])
            let key = "key\(rng.below(keyCount))"
            let line = "\(i) \(key)"
            windowEnd = windowEnd.filter { $0.value > t }
            if windowEnd[key] == nil {
                expected.append(Emission(time: t, line))
                windowEnd[key] = t + window
            }
            peak = max(peak, windowEnd.count)
            var l = line
            var k = key
            l.withUTF8 { lb in
                k.withUTF8 { kb in try! scheduler.send(UnsafeRawBufferPointer(lb), key: UnsafeRawBufferPointer(kb), at: t) }
            }
            #expect(scheduler.heldKeys == windowEnd.count)
        }
        try! scheduler.finish()
        #expect(scheduler.sink.emissions == expected)
        #expect(scheduler.heldKeys == 0)
        #expect(scheduler.stats.activeKeys == 0)
        #expect(scheduler.stats.peakActiveKeys == Int64(peak))
        #expect(scheduler.stats.distinctKeys == Int64(min(keyCount, 60_000)))
    }
}
