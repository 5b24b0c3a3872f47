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
// The heap and the slot-to-position index live in raw buffers behind one
// copy-on-write reference, checked once per operation: as two arrays, every
// step of a sift paid bounds checks and each write a uniqueness check.

struct TimerQueue {
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

    /// The buffers, freed with the last copy that uses them.
    private final class Storage {
        /// The heap, `count` entries of `capacity`.
        var entries: UnsafeMutablePointer<Entry>
        var count = 0
        var capacity: Int
        /// Heap position of each slot's timer, or -1 when the slot has none;
        /// `slots` of them.
        var positions: UnsafeMutablePointer<Int32>
        var slots: Int
        var nextOrder: UInt64 = 0

        init(capacity: Int, slots: Int) {
            self.capacity = capacity
            self.slots = slots
            entries = .allocate(capacity: capacity)
            positions = .allocate(capacity: slots)
            positions.initialize(repeating: -1, count: slots)
        }

        deinit {
            entries.deallocate()
            positions.deallocate()
        }

        func copy() -> Storage {
            let other = Storage(capacity: capacity, slots: slots)
            other.entries.initialize(from: entries, count: count)
            other.count = count
            other.positions.update(from: positions, count: slots)
            other.nextOrder = nextOrder
            return other
        }

        func growEntries() {
            let bigger = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: entries, count: count)
            entries.deallocate()
            entries = bigger
            capacity *= 2
        }

        func growSlots(toInclude slot: Int) {
            let newSlots = max(slots * 2, slot + 1)
            let bigger = UnsafeMutablePointer<Int32>.allocate(capacity: newSlots)
            bigger.moveInitialize(from: positions, count: slots)
            (bigger + slots).initialize(repeating: -1, count: newSlots - slots)
            positions.deallocate()
            positions = bigger
            slots = newSlots
        }
    }

    private var storage = Storage(capacity: 16, slots: 16)

    var isEmpty: Bool { storage.count == 0 }
    var count: Int { storage.count }

    /// The earliest timer, if any.
    @inline(__always)
    var first: Entry? { storage.count > 0 ? storage.entries[0] : nil }

    /// Sets (or moves) the timer of `slot` to `due`.
    @inline(__always)
    mutating func set(slot: Int32, due: Instant) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let st = storage
        let s = Int(slot)
        if s >= st.slots { st.growSlots(toInclude: s) }
        let at = Int(st.positions[s])
        if at > 0, due >= st.entries[at].due {
            // Pushed back, below the top: re-sorted once its old deadline
            // is the earliest.
            st.entries[at].latest = due
            return
        }
        st.nextOrder &+= 1
        let entry = Entry(due: due, latest: due, order: st.nextOrder, slot: slot)
        if at >= 0 {
            let entries = st.entries
            // The only timer moves (every reschedule of a lone key): nothing
            // to compare it with.
            if st.count == 1 {
                entries[0] = entry
                return
            }
            let earlier = Self.precedes(entry, entries[at])
            entries[at] = entry
            if earlier { Self.siftUp(st, at) } else { Self.siftDown(st, at) }
            Self.settleTop(st)
            return
        }
        if st.count == st.capacity { st.growEntries() }
        (st.entries + st.count).initialize(to: entry)
        st.count += 1
        Self.siftUp(st, st.count - 1)
    }

    /// Removes and returns the earliest timer.
    mutating func popFirst() -> Entry {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let st = storage
        precondition(st.count > 0, "TimerQueue: popFirst on an empty queue")
        let entries = st.entries
        let top = entries[0]
        st.positions[Int(top.slot)] = -1
        st.count -= 1
        if st.count > 0 {
            entries[0] = entries[st.count]
            Self.siftDown(st, 0)
            Self.settleTop(st)
        }
        return top
    }

    /// When the timer of `slot` is due, if one is set.
    func due(of slot: Int32) -> Instant? {
        let s = Int(slot)
        guard s < storage.slots else { return nil }
        let at = Int(storage.positions[s])
        return at >= 0 ? storage.entries[at].latest : nil
    }

    /// True when `slot` has a timer set.
    func hasTimer(slot: Int32) -> Bool {
        let s = Int(slot)
        return s < storage.slots && storage.positions[s] >= 0
    }

    @inline(__always)
    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.due < b.due || (a.due == b.due && a.order < b.order)
    }

    /// Re-sorts the top entry until it is ordered by its own deadline: a
    /// timer pushed back goes down to where that deadline belongs, and the
    /// one that comes up may have been pushed back too.
    @inline(__always)
    private static func settleTop(_ st: Storage) {
        let entries = st.entries
        while entries[0].due != entries[0].latest {
            st.nextOrder &+= 1
            entries[0].due = entries[0].latest
            entries[0].order = st.nextOrder
            siftDown(st, 0)
        }
    }

    private static func siftUp(_ st: Storage, _ start: Int) {
        let entries = st.entries
        let positions = st.positions
        var child = start
        let moving = entries[child]
        while child > 0 {
            let parent = (child &- 1) / 2
            guard precedes(moving, entries[parent]) else { break }
            entries[child] = entries[parent]
            positions[Int(entries[child].slot)] = Int32(truncatingIfNeeded: child)
            child = parent
        }
        entries[child] = moving
        positions[Int(moving.slot)] = Int32(truncatingIfNeeded: child)
    }

    private static func siftDown(_ st: Storage, _ start: Int) {
        let entries = st.entries
        let positions = st.positions
        let n = st.count
        var parent = start
        let moving = entries[parent]
        while true {
            var child = 2 &* parent &+ 1
            guard child < n else { break }
            if child &+ 1 < n, precedes(entries[child &+ 1], entries[child]) { child &+= 1 }
            guard precedes(entries[child], moving) else { break }
            entries[parent] = entries[child]
            positions[Int(entries[parent].slot)] = Int32(truncatingIfNeeded: parent)
            parent = child
        }
        entries[parent] = moving
        positions[Int(moving.slot)] = Int32(truncatingIfNeeded: parent)
    }
}
