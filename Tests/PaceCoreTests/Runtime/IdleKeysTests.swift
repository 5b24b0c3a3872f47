// Idle keys stay in the key table on a bounded list, and come back with a
// fresh state. These tests run keyed throttles over more keys than the list
// keeps, so keys are revived, evicted and re-inserted, and check emissions
// and the key counters against a plain per-key model.

@testable import PaceCore
import Testing

struct IdleKeysTests {
    @Test(arguments: [3, 500, 5_000])
    func keysThatComeBackBehaveAsNewKeys(keyCount: Int) {
        var state: UInt64 = UInt64(keyCount)
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let window: Nanoseconds = 1_000
        var clock = TestClock(policy: ThrottleFirst<EventNumber>(window: window), keyed: true)
        // The model: each key's window end; a key is active while it is open.
        var windowEnd: [String: Instant] = [:]
        var expected: [Emission] = []
        var peak = 0
        var t: Instant = 0
        for i in 0..<60_000 {
            t += Instant([0, 1, 10, 100][next(4)])
            let key = "key\(next(keyCount))"
            let line = "\(i) \(key)"
            windowEnd = windowEnd.filter { $0.value > t }
            if windowEnd[key] == nil {
                expected.append(Emission(time: t, line))
                windowEnd[key] = t + window
            }
            peak = max(peak, windowEnd.count)
            clock.advance(to: t)
            clock.send(line, key: key)
            #expect(clock.heldKeys == windowEnd.count)
        }
        clock.finish()
        #expect(clock.emissions == expected)
        #expect(clock.heldKeys == 0)
        #expect(clock.stats.activeKeys == 0)
        #expect(clock.stats.peakActiveKeys == Int64(peak))
        #expect(clock.stats.distinctKeys == Int64(min(keyCount, 60_000)))
    }
}
