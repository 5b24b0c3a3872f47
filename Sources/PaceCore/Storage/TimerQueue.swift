// The timers of all keys, earliest first. Each key owns at most one timer, so
// this is an indexed binary heap: a key's entry is found by its slot number
// and moved in place when a debounce pushes its deadline back, instead of
// piling up stale entries (an endless keyed burst would otherwise grow the
// heap without bound).
//
// A timer pushed back is not re-sorted at once. Its entry keeps its place,
// ordered by the deadline it had, and only notes the new one (`latest`); it
// is re-sorted when the old deadline comes to the top, by then often pushed
// back many times (a count limit's timer moves with every line it lets
// through, a debounce's with every line). The top entry is always re-sorted
// at once, so `first` is exact: every other entry's real deadline is at or
// after the one it is ordered by, which is at or after the top's.
//
// The heap and the slot-to-position index live in raw buffers of a class with
// one owner (the key store): as two arrays, every step of a sift paid bounds
// checks and each write a uniqueness check.

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
}

package final class TimerQueue: SlotTimers {
    struct Entry {
        /// The deadline the heap orders this entry by: `latest`, or an
        /// earlier one it was pushed back from (never in the top entry).
        var due: Instant
        /// When the timer is due.
        var latest: Instant
        /// Tie-break between equal deadlines: the order timers were set in,
        /// or re-sorted in when pushed back. Emission order at one instant is
        /// settled by the scheduler, which sorts a batch of equal deadlines
        /// by pending event; this only makes the heap itself deterministic.
        var order: UInt64
        var slot: Int32
    }

    /// The heap, `count` entries of `capacity`.
    private var entries: UnsafeMutablePointer<Entry>
    private(set) var count = 0
    private var capacity: Int
    /// Heap position of each slot's timer, or -1 when the slot has none;
    /// `slots` of them.
    private var positions: UnsafeMutablePointer<Int32>
    private var slots: Int
    private var nextOrder: UInt64 = 0

    package init() {
        capacity = 16
        slots = 16
        entries = .allocate(capacity: capacity)
        positions = .allocate(capacity: slots)
        positions.initialize(repeating: -1, count: slots)
    }

    deinit {
        entries.deallocate()
        positions.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The earliest timer, if any.
    @inline(__always)
    var first: Entry? { count > 0 ? entries[0] : nil }

    @inline(__always)
    package var firstDue: Instant? { count > 0 ? entries[0].due : nil }

    /// Sets (or moves) the timer of `slot` to `due`.
    @inline(__always)
    package func set(slot: Int32, due: Instant) {
        let s = Int(slot)
        if s >= slots { growSlots(toInclude: s) }
        let at = Int(positions[s])
        if at > 0, due >= entries[at].due {
            // Pushed back, below the top: re-sorted once its old deadline
            // is the earliest.
            entries[at].latest = due
            return
        }
        nextOrder &+= 1
        let entry = Entry(due: due, latest: due, order: nextOrder, slot: slot)
        if at >= 0 {
            // The only timer moves (every reschedule of a lone key): nothing
            // to compare it with.
            if count == 1 {
                entries[0] = entry
                return
            }
            let earlier = Self.precedes(entry, entries[at])
            entries[at] = entry
            if earlier { siftUp(at) } else { siftDown(at) }
            settleTop()
            return
        }
        if count == capacity { growEntries() }
        (entries + count).initialize(to: entry)
        count += 1
        siftUp(count - 1)
    }

    /// Removes the earliest timer; returns its slot.
    @inline(__always)
    package func popFirst() -> Int32 { popFirstEntry().slot }

    /// Removes and returns the earliest timer.
    func popFirstEntry() -> Entry {
        precondition(count > 0, "TimerQueue: popFirst on an empty queue")
        let top = entries[0]
        positions[Int(top.slot)] = -1
        count -= 1
        if count > 0 {
            entries[0] = entries[count]
            siftDown(0)
            settleTop()
        }
        return top
    }

    /// When the timer of `slot` is due, if one is set.
    package func due(of slot: Int32) -> Instant? {
        let s = Int(slot)
        guard s < slots else { return nil }
        let at = Int(positions[s])
        return at >= 0 ? entries[at].latest : nil
    }

    @inline(__always)
    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.due < b.due || (a.due == b.due && a.order < b.order)
    }

    /// Re-sorts the top entry until it is ordered by its own deadline: a
    /// timer pushed back goes down to where that deadline belongs, and the
    /// one that comes up may have been pushed back too.
    @inline(__always)
    private func settleTop() {
        while entries[0].due != entries[0].latest {
            nextOrder &+= 1
            entries[0].due = entries[0].latest
            entries[0].order = nextOrder
            siftDown(0)
        }
    }

    private func siftUp(_ start: Int) {
        let entries = self.entries
        let positions = self.positions
        var child = start
        let moving = entries[child]
        while child > 0 {
            let parent = (child &- 1) / 2
            guard Self.precedes(moving, entries[parent]) else { break }
            entries[child] = entries[parent]
            positions[Int(entries[child].slot)] = Int32(truncatingIfNeeded: child)
            child = parent
        }
        entries[child] = moving
        positions[Int(moving.slot)] = Int32(truncatingIfNeeded: child)
    }

    private func siftDown(_ start: Int) {
        let entries = self.entries
        let positions = self.positions
        let n = count
        var parent = start
        let moving = entries[parent]
        while true {
            var child = 2 &* parent &+ 1
            guard child < n else { break }
            if child &+ 1 < n, Self.precedes(entries[child &+ 1], entries[child]) { child &+= 1 }
            guard Self.precedes(entries[child], moving) else { break }
            entries[parent] = entries[child]
            positions[Int(entries[parent].slot)] = Int32(truncatingIfNeeded: parent)
            parent = child
        }
        entries[parent] = moving
        positions[Int(moving.slot)] = Int32(truncatingIfNeeded: parent)
    }

    @inline(never)
    private func growEntries() {
        let bigger = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: entries, count: count)
        entries.deallocate()
        entries = bigger
        capacity *= 2
    }

    @inline(never)
    private func growSlots(toInclude slot: Int) {
        let newSlots = max(slots * 2, slot + 1)
        let bigger = UnsafeMutablePointer<Int32>.allocate(capacity: newSlots)
        bigger.moveInitialize(from: positions, count: slots)
        (bigger + slots).initialize(repeating: -1, count: newSlots - slots)
        positions.deallocate()
        positions = bigger
        slots = newSlots
    }
}
