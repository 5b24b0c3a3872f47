// The timer heap against a plain dictionary of deadlines, on random
// sequences of set, move and pop, including the one-timer fast path and many
// timers due at the same instant (they pop in the order they were set); and
// a copy of a queue is its own.

@testable import PaceCore
import PaceTesting
import Testing

struct TimerQueueTests {
    @Test(arguments: [1, 2, 3, 16, 200])
    func popsTheEarliestTimerOfAModel(slots: Int) {
        var rng = SplitMix64(seed: UInt64(slots))
        var queue = TimerQueue()
        // Each slot's deadline, and when it was set (ties go to the earlier).
        var model: [Int32: (due: Instant, order: Int)] = [:]
        var order = 0
        for _ in 0..<20_000 {
            if rng.below(3) > 0 || model.isEmpty {
                let slot = Int32(rng.below(slots))
                // A coarse grid of deadlines, so that ties are common.
                let due = Instant(rng.below(50))
                queue.set(slot: slot, due: due)
                order += 1
                model[slot] = (due, order)
            } else {
                let earliest = model.min { ($0.value.due, $0.value.order) < ($1.value.due, $1.value.order) }!
                let popped = queue.popFirst()
                #expect(popped.due == earliest.value.due)
                #expect(popped.slot == earliest.key)
                model[popped.slot] = nil
            }
            #expect(queue.count == model.count)
            #expect(queue.first?.due == model.values.map(\.due).min())
            for slot in 0..<Int32(slots) { #expect(queue.hasTimer(slot: slot) == (model[slot] != nil)) }
        }
    }

    @Test func copiesAreIndependent() {
        var original = TimerQueue()
        for slot in 0..<40 { original.set(slot: Int32(slot), due: Instant(100 - slot)) }
        var copy = original
        copy.set(slot: 5, due: 1)
        _ = copy.popFirst()
        #expect(original.count == 40)
        #expect(original.first?.due == 61)
        #expect(original.hasTimer(slot: 5))
        #expect(!copy.hasTimer(slot: 5))
        #expect(copy.first?.due == 61)
        _ = original.popFirst()
        #expect(copy.count == 39)
        #expect(original.count == 39)
    }
}
