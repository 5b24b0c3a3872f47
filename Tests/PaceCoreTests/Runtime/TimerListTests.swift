// The key store's timers (TimerQueue: a list while they are set in deadline
// order, the heap from the first that is not) against a plain dictionary of
// deadlines: sets in deadline order stay listed, the first out of order
// moves every timer into the heap at that set and not before, and in either
// form the earliest comes out first and each slot's deadline is the model's.

@testable import PaceCore
import PaceTesting
import Testing

struct TimerListTests {
    /// Checks `queue` against `model` after each step.
    private func expectSame(_ queue: TimerQueue, _ model: [Int32: Instant], slots: Int) {
        #expect(queue.firstDue == model.values.min())
        for slot in 0..<Int32(slots) {
            #expect(queue.due(of: slot) == model[slot])
        }
    }

    /// Pops the earliest timer of `queue` and of `model` (among timers due
    /// at one instant, any may come first).
    private func pop(_ queue: TimerQueue, _ model: inout [Int32: Instant]) {
        let earliest = model.values.min()!
        let slot = queue.popFirst()
        #expect(model[slot] == earliest)
        model[slot] = nil
    }

    /// Deadlines that never go back (a debounce's: the line's time and the
    /// window), with pops and cancels between: the timers stay listed.
    @Test(arguments: [1, 2, 16, 200])
    func timersSetInDeadlineOrderStayListed(slots: Int) {
        var rng = SplitMix64(seed: UInt64(slots) &+ 11)
        let queue = TimerQueue()
        var model: [Int32: Instant] = [:]
        var now = 0
        var cancels = 0
        for _ in 0..<20_000 {
            let slot = Int32(rng.below(slots))
            switch rng.below(6) {
            case 0, 1, 2:
                // Often the same instant as the last: ties are common.
                now += rng.below(3)
                queue.set(slot: slot, due: Instant(now + 50))
                model[slot] = Instant(now + 50)
            case 3:
                if model[slot] != nil { cancels += 1 }
                queue.cancel(slot: slot)
                model[slot] = nil
            default:
                if !model.isEmpty { pop(queue, &model) }
            }
            expectSame(queue, model, slots: slots)
        }
        #expect(!queue.inHeap)
        #expect(cancels > 100)
    }

    /// Deadlines in any order: the first set before the last deadline moves
    /// the timers into the heap, at that set, and the queue is the model's
    /// before and after.
    @Test(arguments: [2, 3, 16, 200])
    func aDeadlineOutOfOrderMovesTheTimersIntoTheHeap(slots: Int) {
        var rng = SplitMix64(seed: UInt64(slots) &+ 5)
        let queue = TimerQueue()
        var model: [Int32: Instant] = [:]
        // The deadline of the timer set last, while any is set.
        var newest: Instant? = nil
        var setsBefore = 0
        for step in 0..<20_000 {
            let slot = Int32(rng.below(slots))
            if rng.below(3) > 0 || model.isEmpty {
                // In order for the first 1000 steps, then anywhere.
                let due = step < 1000 ? Instant(step) : Instant(rng.below(2000))
                let alone = model.count == 1 && model[slot] != nil
                let outOfOrder = !alone && newest.map { due < $0 } ?? false
                let wasInHeap = queue.inHeap
                queue.set(slot: slot, due: due)
                model[slot] = due
                if !wasInHeap {
                    #expect(queue.inHeap == outOfOrder)
                    if !outOfOrder { setsBefore += 1 }
                }
                newest = due
            } else {
                pop(queue, &model)
                if model.isEmpty { newest = nil }
            }
            expectSame(queue, model, slots: slots)
        }
        #expect(queue.inHeap)
        #expect(setsBefore >= 600)
    }

    /// Set again to the deadline it has, a timer keeps its place among
    /// timers due at that instant; pushed back, it goes after them.
    @Test func aTimerSetToItsOwnDeadlineKeepsItsPlace() {
        let queue = TimerQueue()
        queue.set(slot: 0, due: 10)
        queue.set(slot: 1, due: 10)
        queue.set(slot: 0, due: 10)
        queue.set(slot: 2, due: 12)
        queue.set(slot: 1, due: 12)
        #expect(queue.popFirst() == 0)
        #expect(queue.firstDue == 12)
        #expect(queue.popFirst() == 2)
        #expect(queue.popFirst() == 1)
        #expect(queue.firstDue == nil)
        #expect(!queue.inHeap)
    }

    /// A lone timer brought forward is still in order; with another timer
    /// set, a timer brought forward moves them into the heap.
    @Test func aLoneTimerMayMoveEarlier() {
        let queue = TimerQueue()
        queue.set(slot: 3, due: 40)
        queue.set(slot: 3, due: 20)
        #expect(!queue.inHeap)
        #expect(queue.due(of: 3) == 20)
        queue.set(slot: 4, due: 30)
        #expect(!queue.inHeap)
        queue.set(slot: 4, due: 25)
        #expect(queue.inHeap)
        #expect(queue.due(of: 4) == 25)
        queue.set(slot: 3, due: 26)
        #expect(queue.popFirst() == 4)
        #expect(queue.popFirst() == 3)
        #expect(queue.firstDue == nil)
    }
}
