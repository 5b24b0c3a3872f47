// The key table against a plain model over seeded random operations (the
// timers have their own, in TimerHeapTests and TimerListTests).

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

    @Test("byte equality at every length up to 40 sees a difference in every byte")
    func byteEqualityEveryLengthAndPosition() {
        for n in 0...40 {
            let a = (0..<n).map { UInt8(truncatingIfNeeded: 0x41 &+ $0 &* 7) }
            a.withUnsafeBytes { pa in
                a.withUnsafeBytes { pb in
                    #expect(memcmpBytes(pa.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                                        pb.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, n), "length \(n)")
                }
            }
            for position in 0..<n {
                var b = a
                b[position] ^= 0x20
                a.withUnsafeBytes { pa in
                    b.withUnsafeBytes { pb in
                        #expect(!memcmpBytes(pa.baseAddress!, pb.baseAddress!, n), "length \(n), byte \(position)")
                    }
                }
            }
        }
    }
}
