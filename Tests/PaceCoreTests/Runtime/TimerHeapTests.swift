// The timer heap against a plain dictionary of deadlines, on random
// sequences of set, move and pop, including the one-timer fast path, timers
// pushed back below the top (re-sorted only when their old deadline comes up)
// and many timers due at the same instant; and a copy of a queue is its own.

@testable import PaceCore
import PaceTesting
import Testing

struct TimerHeapTests {
    @Test(arguments: [1, 2, 3, 16, 200])
    func popsTheEarliestTimerOfAModel(slots: Int) {
        var rng = SplitMix64(seed: UInt64(slots))
        let queue = TimerHeap()
        // Each slot's deadline.
        var model: [Int32: Instant] = [:]
        for _ in 0..<20_000 {
            if rng.below(3) > 0 || model.isEmpty {
                let slot = Int32(rng.below(slots))
                // A coarse grid of deadlines, so that ties are common.
                let due = Instant(rng.below(50))
                queue.set(slot: slot, due: due)
                model[slot] = due
            } else {
                let earliest = model.values.min()!
                let popped = queue.popFirstEntry()
                // Among timers due at one instant, any may come first.
                #expect(popped.due == earliest)
                #expect(model[popped.slot] == earliest)
                model[popped.slot] = nil
            }
            #expect(queue.count == model.count)
            #expect(queue.first?.due == model.values.min())
            for slot in 0..<Int32(slots) {
                #expect(queue.due(of: slot) == model[slot])
            }
        }
    }

    /// `cancel` (a `--batch` that filled before its debounce's deadline)
    /// among set, move and pop, against the same model: a cancelled slot
    /// has no timer, and the rest still come out earliest first.
    @Test(arguments: [1, 2, 3, 16, 200])
    func cancelKeepsTheHeapAModel(slots: Int) {
        var rng = SplitMix64(seed: UInt64(slots) &+ 7)
        let queue = TimerHeap()
        var model: [Int32: Instant] = [:]
        var cancelledOne = 0
        for _ in 0..<20_000 {
            let slot = Int32(rng.below(slots))
            switch rng.below(4) {
            case 0, 1:
                let due = Instant(rng.below(50))
                queue.set(slot: slot, due: due)
                model[slot] = due
            case 2:
                if model[slot] != nil { cancelledOne += 1 }
                queue.cancel(slot: slot)
                model[slot] = nil
            default:
                guard let earliest = model.values.min() else { continue }
                let popped = queue.popFirstEntry()
                #expect(popped.due == earliest)
                #expect(model[popped.slot] == earliest)
                model[popped.slot] = nil
            }
            #expect(queue.count == model.count)
            #expect(queue.first?.due == model.values.min())
            for slot in 0..<Int32(slots) {
                #expect(queue.due(of: slot) == model[slot])
            }
        }
        #expect(cancelledOne > 1000)
    }

    /// A timer pushed back below the top keeps its place until its old
    /// deadline is the earliest, then goes where its new one belongs.
    @Test func aTimerPushedBackComesOutAtItsLastDeadline() {
        let queue = TimerHeap()
        queue.set(slot: 0, due: 10)
        queue.set(slot: 1, due: 20)
        queue.set(slot: 2, due: 30)
        for due in stride(from: 21, through: 35, by: 2) { queue.set(slot: 1, due: Instant(due)) }
        #expect(queue.due(of: 1) == 35)
        #expect(queue.popFirst() == 0)
        #expect(queue.first?.due == 30)
        #expect(queue.popFirst() == 2)
        let last = queue.popFirstEntry()
        #expect(last.slot == 1)
        #expect(last.due == 35)
        #expect(queue.isEmpty)
    }

    /// Pushed back and then brought forward again, a timer is due at the
    /// earlier deadline.
    @Test func aTimerBroughtForwardAfterAPushBack() {
        let queue = TimerHeap()
        queue.set(slot: 0, due: 10)
        queue.set(slot: 1, due: 20)
        queue.set(slot: 1, due: 50)
        queue.set(slot: 1, due: 15)
        queue.set(slot: 0, due: 40)
        #expect(queue.first?.due == 15)
        #expect(queue.popFirst() == 1)
        #expect(queue.popFirstEntry().due == 40)
    }
}
