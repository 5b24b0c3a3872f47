// The key store's timers: a list in the order they were set while that is
// their deadlines' order, the heap (TimerHeap.swift) from the first timer
// that is not.
//
// Most runs set their timers in deadline order: a debounce's deadline is
// the line's time and the window, a throttle's its window's start and the
// window, and the clock never runs back. Then the list (SlotLRU, a doubly
// linked list through slot numbers, with each slot's deadline beside it) is
// in deadline order too: setting a timer moves its slot to the list's end,
// and the earliest is the first. The heap kept such timers in order at a
// cost: each pop re-sorted the timers pushed back meanwhile (85 of a keyed
// debounce's 642 instructions a line, with 16 keys; the list's relinks cost
// about 57 of them, so the list saved 28: 642 -> 614).
//
// A deadline before the last one set (`--max-wait` cutting a burst short, a
// `--state` restore, a timestamp that runs back) is out of the list's
// order: then every listed timer goes into the heap, oldest first, and the
// heap holds them all for the rest of the run (going back and forth would
// allocate at each change). The list's storage is given back then.
//
// Timers due at one instant come out in the order they were set in the
// list, and in the heap's order of entries in the heap; the scheduler sorts
// what they emit (Scheduler.fireBatch), so neither order reaches the output.

/// The key store's timers.
package final class TimerQueue: SlotTimers {
    // The class has one owner, and its accesses never overlap: unchecked,
    // as the heap's.
    /// True while every timer is listed, in deadline order.
    @exclusivity(unchecked) private var listed = true
    @exclusivity(unchecked) private var list = SlotLRU()
    /// Each listed slot's deadline.
    @exclusivity(unchecked) private var dues = SlotArray<Instant>(empty: .max)
    private let heap = TimerHeap()

    package init() {}

    /// True once the timers went into the heap (tests).
    var inHeap: Bool { !listed }

    /// Sets (or moves) the timer of `slot` to `due`.
    @inline(__always)
    package func set(slot: Int32, due: Instant) {
        guard listed else { return heap.set(slot: slot, due: due) }
        let last = list.newest
        if last < 0 || due >= dues[Int(last)] {
            if list.contains(slot) {
                // Due when it was: it keeps its place among equal deadlines.
                if dues[Int(slot)] == due { return }
                list.remove(slot)
            }
            dues.reserve(Int(slot))
            list.push(slot)
            dues[Int(slot)] = due
            return
        }
        setOutOfOrder(slot: slot, due: due)
    }

    /// A deadline before the last one set: the one timer moves, or every
    /// timer goes into the heap.
    @inline(never)
    private func setOutOfOrder(slot: Int32, due: Instant) {
        if list.count == 1 && list.newest == slot {
            dues[Int(slot)] = due
            return
        }
        while list.oldest >= 0 {
            let first = list.popOldest()
            let at = dues[Int(first)]
            heap.insert(TimerEntry(due: at, latest: at, order: heap.nextStamp(), slot: first))
        }
        list = SlotLRU()
        dues = SlotArray(empty: .max, capacity: 1)
        listed = false
        heap.set(slot: slot, due: due)
    }

    /// When the earliest timer is due, if any.
    @inline(__always)
    package var firstDue: Instant? {
        guard listed else { return heap.firstDue }
        let first = list.oldest
        return first >= 0 ? dues[Int(first)] : nil
    }

    /// Removes the earliest timer; returns its slot.
    @inline(__always)
    package func popFirst() -> Int32 {
        listed ? list.popOldest() : heap.popFirst()
    }

    /// When the timer of `slot` is due, if one is set.
    package func due(of slot: Int32) -> Instant? {
        guard listed else { return heap.due(of: slot) }
        return list.contains(slot) ? dues[Int(slot)] : nil
    }

    /// Removes the timer of `slot`, if one is set (`--batch`: a batch that
    /// filled before its debounce's deadline).
    package func cancel(slot: Int32) {
        guard listed else { return heap.cancel(slot: slot) }
        if list.contains(slot) { list.remove(slot) }
    }
}
