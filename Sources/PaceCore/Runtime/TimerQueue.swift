// The timers of all keys, earliest first. Each key owns at most one timer, so
// this is an indexed binary heap: a key's entry is found by its slot number
// and moved in place when a debounce pushes its deadline back, instead of
// piling up stale entries (an endless keyed burst would otherwise grow the
// heap without bound). Unkeyed, it holds at most one entry and every
// operation is a couple of comparisons.

struct TimerQueue {
    struct Entry {
        var due: Instant
        /// Tie-break between equal deadlines: the order timers were set in.
        /// Emission order at one instant is settled by the scheduler, which
        /// sorts a batch of equal deadlines by pending event; this only makes
        /// the heap itself deterministic.
        var order: UInt64
        var slot: Int32
    }

    private(set) var entries: [Entry] = []
    /// Heap position of each slot's timer, or -1 when the slot has none.
    private var position: [Int32] = []
    private var nextOrder: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The earliest timer, if any.
    @inline(__always)
    var first: Entry? { entries.first }

    /// Sets (or moves) the timer of `slot` to `due`.
    mutating func set(slot: Int32, due: Instant) {
        let s = Int(slot)
        if s >= position.count {
            position.append(contentsOf: repeatElement(-1, count: s - position.count + 1))
        }
        nextOrder &+= 1
        let entry = Entry(due: due, order: nextOrder, slot: slot)
        let at = Int(position[s])
        if at < 0 {
            entries.append(entry)
            position[s] = Int32(entries.count - 1)
            siftUp(entries.count - 1)
        } else {
            let earlier = Self.precedes(entry, entries[at])
            entries[at] = entry
            if earlier { siftUp(at) } else { siftDown(at) }
        }
    }

    /// Removes and returns the earliest timer.
    mutating func popFirst() -> Entry {
        let top = entries[0]
        position[Int(top.slot)] = -1
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            position[Int(last.slot)] = 0
            siftDown(0)
        }
        return top
    }

    /// True when `slot` has a timer set.
    func hasTimer(slot: Int32) -> Bool {
        let s = Int(slot)
        return s < position.count && position[s] >= 0
    }

    @inline(__always)
    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.due < b.due || (a.due == b.due && a.order < b.order)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let moving = entries[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(moving, entries[parent]) else { break }
            entries[child] = entries[parent]
            position[Int(entries[child].slot)] = Int32(child)
            child = parent
        }
        entries[child] = moving
        position[Int(moving.slot)] = Int32(child)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let moving = entries[parent]
        let n = entries.count
        while true {
            var child = 2 * parent + 1
            guard child < n else { break }
            if child + 1 < n, Self.precedes(entries[child + 1], entries[child]) { child += 1 }
            guard Self.precedes(entries[child], moving) else { break }
            entries[parent] = entries[child]
            position[Int(entries[parent].slot)] = Int32(parent)
            parent = child
        }
        entries[parent] = moving
        position[Int(moving.slot)] = Int32(parent)
    }
}
