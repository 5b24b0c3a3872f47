// The key table and the timer queue, each against a plain model over seeded
// random operations.

import Testing
@testable import PaceCore
import PaceTesting

private func find(_ table: borrowing KeyTable, _ key: String) -> Int32? {
    var key = key
    return key.withUTF8 { table.find(UnsafeRawBufferPointer($0), hash: hashBytes(UnsafeRawBufferPointer($0))) }
}

private func insert(_ table: inout KeyTable, _ key: String, slot: Int32) {
    var key = key
    key.withUTF8 { table.insert(UnsafeRawBufferPointer($0), hash: hashBytes(UnsafeRawBufferPointer($0)), slot: slot) }
}

@Suite("Key table and timer queue")
struct KeyTableTests {
    @Test("random inserts and removals agree with a dictionary", arguments: [1, 2, 3] as [UInt64])
    func keyTableMatchesModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var table = KeyTable()
        var model: [String: Int32] = [:]
        var free: [Int32] = []
        var nextSlot: Int32 = 0
        for _ in 0..<20_000 {
            // Few distinct keys, so probe runs collide and removals shift them.
            let key = "k\(rng.next() % 300)" + (rng.next() % 5 == 0 ? "" : "-long-suffix-\(rng.next() % 3)")
            if let slot = model[key], rng.next() % 2 == 0 {
                table.remove(slot: slot)
                model[key] = nil
                free.append(slot)
            } else if model[key] == nil {
                let slot = free.popLast() ?? { defer { nextSlot += 1 }; return nextSlot }()
                insert(&table, key, slot: slot)
                model[key] = slot
            }
            #expect(table.count == model.count)
        }
        for (key, slot) in model { #expect(find(table, key) == slot) }
        for i in 0..<300 where model["k\(i)"] == nil { #expect(find(table, "k\(i)") == nil) }
    }

    @Test("the empty key is a key like any other")
    func emptyKey() {
        var table = KeyTable()
        insert(&table, "", slot: 0)
        insert(&table, "a", slot: 1)
        #expect(find(table, "") == 0)
        #expect(find(table, "a") == 1)
        table.remove(slot: 0)
        #expect(find(table, "") == nil)
        #expect(find(table, "a") == 1)
    }

    @Test("the timer queue pops by due time, then by the order timers were set, and moves timers in place",
          arguments: [7, 8, 9] as [UInt64])
    func timerQueueMatchesModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var queue = TimerQueue()
        // Model: slot -> (due, order set).
        var model: [Int32: (Instant, Int)] = [:]
        var order = 0
        for _ in 0..<10_000 {
            if rng.next() % 3 == 0, !model.isEmpty {
                let expected = model.min { ($0.value.0, $0.value.1) < ($1.value.0, $1.value.1) }!
                let popped = queue.popFirst()
                #expect(popped.slot == expected.key && popped.due == expected.value.0)
                model[expected.key] = nil
            } else {
                let slot = Int32(rng.next() % 50)
                let due = Instant(rng.next() % 100)
                order += 1
                queue.set(slot: slot, due: due)
                model[slot] = (due, order)
            }
            #expect(queue.count == model.count)
            #expect(queue.first?.due == model.values.map(\.0).min())
        }
    }
}
