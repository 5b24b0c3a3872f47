// The timers of all keys, earliest first. Each key owns at most one timer, so
// this is an indexed binary heap: a key's entry is found by its slot number
// and moved in place when a debounce pushes its deadline back, instead of
// piling up stale entries (an endless keyed burst would otherwise grow the
// heap without bound). Unkeyed, it holds at most one entry and every
// operation is a couple of comparisons.

struct TimerQueue {
    struct Entry {
        var due: Instant
        var slot: Int32
    }
    // Entries due at the same instant keep no order of their own: the
    // scheduler pops all of them as one batch and orders the batch by the
    // events they hold (an explicit sequence number), so the heap needs no
    // tie-break to make output deterministic.

    private(set) var entries: [Entry] = []
    /// Heap position of each slot's timer, or -1 when the slot has none.
    private var position: [Int32] = []

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The earliest timer, if any.
    @inline(__always)
    var first: Entry? { entries.first }

    /// Sets (or moves) the timer of `slot` to `due`.
    @inline(__always)
    mutating func set(slot: Int32, due: Instant) {
        let s = Int(slot)
        if s < position.count {
            let at = Int(position[s])
            // The only timer moves (every reschedule when unkeyed): nothing
            // to compare it with.
            if at == 0 && entries.count == 1 {
                entries[0].due = due
                return
            }
            if at >= 0 {
                move(at, to: due)
                return
            }
        } else {
            position.append(contentsOf: repeatElement(-1, count: s - position.count + 1))
        }
        entries.append(Entry(due: due, slot: slot))
        siftUp(entries.count - 1)
    }

    /// Removes and returns the earliest timer.
    mutating func popFirst() -> Entry {
        let top = entries[0]
        position[Int(top.slot)] = -1
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return top
    }

    /// True when `slot` has a timer set.
    func hasTimer(slot: Int32) -> Bool {
        let s = Int(slot)
        return s < position.count && position[s] >= 0
    }

    private mutating func move(_ at: Int, to due: Instant) {
        let earlier = due < entries[at].due
        entries[at].due = due
        if earlier { siftUp(at) } else { siftDown(at) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        let moving = entries[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard moving.due < entries[parent].due else { break }
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
            if child + 1 < n, entries[child + 1].due < entries[child].due { child += 1 }
            guard entries[child].due < moving.due else { break }
            entries[parent] = entries[child]
            position[Int(entries[parent].slot)] = Int32(parent)
            parent = child
        }
        entries[parent] = moving
        position[Int(moving.slot)] = Int32(parent)
    }
}
