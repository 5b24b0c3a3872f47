// The one heap of Storage as a plain heap (no index: `--exec`'s ready keys)
// and as an indexed one changed in place (the heavy hitters' counts), each
// against a sorted model; the timers' use of it is TimerHeapTests'.

@testable import PaceCore
import PaceTesting
import Testing

private struct Plain: HeapEntry {
    var order: UInt64
    var slot: Int32 { 0 }
    static var isIndexed: Bool { false }
    static func precedes(_ a: Plain, _ b: Plain) -> Bool { a.order < b.order }
}

private struct Counted: HeapEntry {
    var count: Int
    var slot: Int32
    static func precedes(_ a: Counted, _ b: Counted) -> Bool { a.count < b.count }
}

struct IndexedHeapTests {
    @Test func aPlainHeapGivesItsEntriesBackInOrder() {
        var rng = SplitMix64(seed: 7)
        let heap = IndexedHeap<Plain>()
        var model: [UInt64] = []
        for step in 0..<5_000 {
            if rng.below(3) > 0 || model.isEmpty {
                let order = UInt64(rng.below(1_000_000)) * 10_000 + UInt64(step)
                heap.insert(Plain(order: order))
                model.append(order)
            } else {
                model.sort()
                #expect(heap.removeFirst().order == model.removeFirst())
            }
            #expect(heap.count == model.count)
        }
        heap.removeAll()
        #expect(heap.isEmpty && heap.first == nil)
    }

    @Test func anIndexedEntryChangedInPlaceMovesToItsPlace() {
        var rng = SplitMix64(seed: 11)
        let heap = IndexedHeap<Counted>()
        var counts = Array(repeating: 0, count: 300)
        for slot in 0..<300 { heap.insert(Counted(count: 0, slot: Int32(slot))) }
        for _ in 0..<20_000 {
            let slot = Int32(rng.below(300))
            let at = heap.place(of: slot)
            #expect(at >= 0 && heap[at].slot == slot)
            heap[at].count += 1
            counts[Int(slot)] += 1
            heap.siftDown(at)
            #expect(heap.first?.count == counts.min())
        }
        #expect(heap.place(of: 300) == -1)
        var popped: [Int] = []
        while !heap.isEmpty {
            let entry = heap.removeFirst()
            #expect(heap.place(of: entry.slot) == -1)
            popped.append(entry.count)
        }
        #expect(popped == counts.sorted())
    }
}
