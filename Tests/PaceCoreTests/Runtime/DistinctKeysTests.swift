// `--stats`' distinct keys are counted exactly: keys are told apart by their
// bytes, not by their hash, and the hash itself keeps short keys apart.

import Testing
@testable import PaceCore
import PaceTesting

private func hash(_ key: String) -> UInt64 {
    var key = key
    return key.withUTF8 { hashBytes(UnsafeRawBufferPointer($0)) }
}

/// A keyed throttle over `keys`, one event each, all at time 0.
private func distinctKeys(_ keys: [String]) -> Int64 {
    var clock = TestClock(policy: ThrottleFirst<EventNumber>(window: 1_000), keyed: true)
    for key in keys { clock.send(key, key: key) }
    clock.finish()
    return clock.stats.distinctKeys
}

@Suite("Distinct keys")
struct DistinctKeysTests {
    // The old hash xored the length into the bits the last bytes then
    // covered: these pairs hashed alike and counted as one key.
    @Test("keys built to collide under the old hash hash apart and count apart",
          arguments: [("2", "12"), ("b", "ab"), ("23", "333")])
    func oldCollisions(a: String, b: String) {
        #expect(hash(a) != hash(b))
        #expect(distinctKeys([a, b]) == 2)
    }

    @Test("the numbers 1 to 100000 and pids 1 to 32768 all hash apart")
    func numbersHashApart() {
        let numbers = (1...100_000).map { String($0) }
        #expect(Set(numbers.map(hash)).count == 100_000)
        #expect(Set(numbers.map { "pid=\($0)" }.prefix(32_768).map(hash)).count == 32_768)
        #expect(distinctKeys(numbers) == 100_000)
    }

    @Test("flipping any input bit flips each output bit about half the time")
    func avalanche() {
        var rng = SplitMix64(seed: 15)
        for length in [1, 3, 7, 8, 13, 24] {
            var flips = [Int](repeating: 0, count: 64)
            var trials = 0
            for _ in 0..<64 {
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let before = bytes.withUnsafeBytes(hashBytes)
                for bit in 0..<(length * 8) {
                    bytes[bit / 8] ^= 1 << (bit % 8)
                    let changed = before ^ bytes.withUnsafeBytes(hashBytes)
                    bytes[bit / 8] ^= 1 << (bit % 8)
                    for out in 0..<64 where changed >> out & 1 == 1 { flips[out] += 1 }
                    trials += 1
                }
            }
            // Every output bit, over 64 to 1536 flips per length: well
            // inside 35% to 65% for a good mix (the old hash's high bits
            // never moved for a 1-byte key's low bits).
            for out in 0..<64 {
                let share = Double(flips[out]) / Double(trials)
                #expect(share > 0.35 && share < 0.65, "length \(length), output bit \(out): \(share)")
            }
        }
    }

    @Test("the length alone tells keys apart: the empty key, NULs, and equal bytes")
    func lengths() {
        let keys = ["", "\0", "\0\0", "\0\0\0", "\0\0\0\0", "\0\0\0\0\0\0\0\0", "\0\0\0\0\0\0\0\0\0"]
        #expect(Set(keys.map(hash)).count == keys.count)
        #expect(distinctKeys(keys) == Int64(keys.count))
    }

    @Test("keys with the same hash are still told apart by their bytes")
    func sameHash() {
        var set = DistinctKeys()
        for key in ["a", "b", "a", "", "ab", "b", ""] {
            var k = key
            k.withUTF8 { _ = set.insert(UnsafeRawBufferPointer($0), hash: 42) }
        }
        #expect(set.count == 4)
    }
}
