// Timers of slots, earliest first: the one heap (IndexedHeap.swift) with an
// entry per slot that has a timer (`TimerHeap`, below), and the key store's
// `TimerQueue` (TimerQueue.swift), a list that becomes that heap when its
// timers stop coming in deadline order. Each key owns at most one timer, so
// its entry is found by its slot and moved in place when a debounce pushes
// its deadline back, instead of piling up stale entries (an endless keyed
// burst would otherwise grow the heap without bound).
//
// In the heap, a timer pushed back is not re-sorted at once. Its entry keeps
// its place, ordered by the deadline it had, and only notes the new one
// (`latest`); it is re-sorted when the old deadline comes to the top, by
// then often pushed back many times (a debounce's moves with every line).
// The top entry is always re-sorted at once, so `first` is exact: every
// other entry's real deadline is at or after the one it is ordered by,
// which is at or after the top's.

/// What the scheduler needs of a key store's timers: each slot's one timer,
/// the earliest first.
package protocol SlotTimers {
    /// Sets (or moves) the timer of `slot` to `due`.
    mutating func set(slot: Int32, due: Instant)
    /// When the earliest timer is due, if any.
    var firstDue: Instant? { get }
    /// Removes the earliest timer; returns its slot.
    mutating func popFirst() -> Int32
    /// When the timer of `slot` is due, if one is set.
    func due(of slot: Int32) -> Instant?
    /// Removes the timer of `slot`, if one is set (`--batch`: a batch that
    /// filled up before its debounce's deadline).
    mutating func cancel(slot: Int32)
}

/// Timers in a heap: an episode's (Episodes.swift), and the key store's
/// once they come out of order (TimerQueue.swift).
package typealias TimerHeap = IndexedHeap<TimerEntry>

/// One slot's timer.
package struct TimerEntry: HeapEntry {
    /// The deadline the heap orders this entry by: `latest`, or an earlier
    /// one it was pushed back from (never in the top entry).
    var due: Instant
    /// When the timer is due.
    var latest: Instant
    /// Tie-break between equal deadlines: the order timers were set in, or
    /// re-sorted in when pushed back. Emission order at one instant is
    /// settled by the scheduler, which sorts a batch of equal deadlines by
    /// pending event; this only makes the heap itself deterministic.
    var order: UInt64
    package var slot: Int32

    @inline(__always)
    package static func precedes(_ a: TimerEntry, _ b: TimerEntry) -> Bool {
        a.due < b.due || (a.due == b.due && a.order < b.order)
    }
}

extension IndexedHeap: SlotTimers where Entry == TimerEntry {
    @inline(__always)
    package var firstDue: Instant? { first?.due }

    /// Sets (or moves) the timer of `slot` to `due`.
    @inline(__always)
    package func set(slot: Int32, due: Instant) {
        let at = place(of: slot)
        if at > 0, due >= self[at].due {
            // Pushed back, below the top: re-sorted once its old deadline
            // is the earliest.
            self[at].latest = due
            return
        }
        let entry = TimerEntry(due: due, latest: due, order: nextStamp(), slot: slot)
        guard at >= 0 else {
            insert(entry)
            return
        }
        // The only timer moves (every reschedule of a lone key): nothing to
        // compare it with.
        if count == 1 {
            self[0] = entry
            return
        }
        let earlier = TimerEntry.precedes(entry, self[at])
        self[at] = entry
        if earlier { siftUp(at) } else { siftDown(at) }
        settleTop()
    }

    /// Removes the earliest timer; returns its slot.
    @inline(__always)
    package func popFirst() -> Int32 { popFirstEntry().slot }

    /// Removes and returns the earliest timer.
    func popFirstEntry() -> TimerEntry {
        let top = removeFirst()
        if count > 0 { settleTop() }
        return top
    }

    /// When the timer of `slot` is due, if one is set.
    package func due(of slot: Int32) -> Instant? {
        let at = place(of: slot)
        return at >= 0 ? self[at].latest : nil
    }

    /// Removes the timer of `slot`, if one is set (`--batch`: a batch that
    /// filled before its debounce's deadline).
    package func cancel(slot: Int32) {
        let at = place(of: slot)
        guard at >= 0 else { return }
        _ = remove(at: at)
        if count > 0 { settleTop() }
    }

    /// Re-sorts the top entry until it is ordered by its own deadline: a
    /// timer pushed back goes down to where that deadline belongs, and the
    /// one that comes up may have been pushed back too.
    @inline(__always)
    private func settleTop() {
        while self[0].due != self[0].latest {
            self[0].due = self[0].latest
            self[0].order = nextStamp()
            siftDown(0)
        }
    }
}
