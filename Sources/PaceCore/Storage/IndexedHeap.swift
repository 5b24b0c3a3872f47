// The one binary min-heap of the code. Its users:
// - timers of slots (TimerHeap.swift: an episode's, and the key store's
//   once they come out of order): an entry per slot with a timer, earliest
//   deadline first, moved in place when a deadline moves;
// - `--stats`' heavy hitters (Insight/HeavyHitters.swift): an entry per
//   counted key, fewest events first, moved down when a count grows;
// - `--exec`'s keys ready to start (Commands/CommandQueueStorage.swift),
//   earliest waiting line first: a plain heap, no index.
//
// Entries live in a raw buffer of a class with one owner: as an array, every
// step of a sift paid a bounds check and each write a uniqueness check, on
// the timer's per-line path. When `Entry.isIndexed`, each slot's place in
// the heap is kept in a slot array, so an entry is found by its slot and
// re-sifted where it is instead of piling up stale copies; the test is a
// constant of the entry type, so a plain heap's sifts keep no index.

/// What an `IndexedHeap` holds: ordered by `precedes`, placed by `slot`.
package protocol HeapEntry {
    /// The entry's slot, at most one entry per slot (when indexed).
    var slot: Int32 { get }
    /// True when `a` comes out before `b`. Entries that neither precedes
    /// come out in an order of the heap's shape, not of their insertion.
    static func precedes(_ a: Self, _ b: Self) -> Bool
    /// The heap keeps each slot's place (`place(of:)`). True unless said.
    static var isIndexed: Bool { get }
}

extension HeapEntry {
    package static var isIndexed: Bool { true }
}

package final class IndexedHeap<Entry: HeapEntry> {
    // Every stored field's accesses are unchecked: the class has one owner,
    // and its accesses never overlap. Checked, the runtime's exclusivity
    // tracking was called at each (+475 instructions a line, keyed).

    /// The heap, `count` entries of `capacity`.
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) package private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int
    /// A counter its owner numbers entries with, for an order among equal
    /// ones that does not depend on the heap's shape (see `nextStamp`).
    @exclusivity(unchecked) private var stamps: UInt64 = 0
    /// Heap position of each slot's entry, or -1 (only when indexed).
    @exclusivity(unchecked) private var places = SlotArray<Int32>(empty: -1, capacity: Entry.isIndexed ? 16 : 1)

    package init() {
        capacity = 16
        entries = .allocate(capacity: capacity)
    }

    deinit {
        entries.deinitialize(count: count)
        entries.deallocate()
    }

    package var isEmpty: Bool { count == 0 }

    /// The first entry, if any.
    @inline(__always)
    package var first: Entry? { count > 0 ? entries[0] : nil }

    /// The entry at heap position `position` (below `count`), changed in
    /// place; whoever changes its order calls `siftUp` or `siftDown` after.
    @inline(__always)
    package subscript(position: Int) -> Entry {
        get { entries[position] }
        _modify { yield &entries[position] }
    }

    /// The next number of a counter kept with the heap: entries stamped
    /// with it and ordered by it among equals come out oldest first.
    @inline(__always)
    package func nextStamp() -> UInt64 {
        stamps &+= 1
        return stamps
    }

    /// The heap position of the entry of `slot`, or -1 when it has none.
    @inline(__always)
    package func place(of slot: Int32) -> Int {
        Int(slot) < places.capacity ? Int(places[Int(slot)]) : -1
    }

    /// Adds an entry (of a slot that has none, when indexed).
    @inline(__always)
    package func insert(_ entry: Entry) {
        if Entry.isIndexed { places.reserve(Int(entry.slot)) }
        if count == capacity { grow() }
        (entries + count).initialize(to: entry)
        count += 1
        siftUp(count - 1)
    }

    /// Removes and returns the first entry; the heap must not be empty.
    @inline(__always)
    package func removeFirst() -> Entry {
        precondition(count > 0, "IndexedHeap: removeFirst on an empty heap")
        let top = entries[0]
        if Entry.isIndexed { places[Int(top.slot)] = -1 }
        count -= 1
        if count > 0 {
            entries[0] = (entries + count).move()
            siftDown(0)
        } else {
            (entries + count).deinitialize(count: 1)
        }
        return top
    }

    /// Removes and returns the entry at heap position `position` (below
    /// `count`): the last entry takes its place and moves up or down to
    /// where it belongs.
    @discardableResult
    package func remove(at position: Int) -> Entry {
        precondition(position >= 0 && position < count, "IndexedHeap: remove(at: \(position)) of \(count)")
        let removed = entries[position]
        if Entry.isIndexed { places[Int(removed.slot)] = -1 }
        count -= 1
        guard position < count else {
            (entries + count).deinitialize(count: 1)
            return removed
        }
        entries[position] = (entries + count).move()
        if Entry.precedes(entries[position], removed) { siftUp(position) } else { siftDown(position) }
        return removed
    }

    /// Moves the entry at `start` up while it precedes its parent.
    package func siftUp(_ start: Int) {
        let entries = self.entries
        var child = start
        let moving = entries[child]
        while child > 0 {
            let parent = (child &- 1) / 2
            guard Entry.precedes(moving, entries[parent]) else { break }
            entries[child] = entries[parent]
            placed(child)
            child = parent
        }
        entries[child] = moving
        placed(child)
    }

    /// Moves the entry at `start` down while a child precedes it (the
    /// earlier child; the left one when neither precedes the other).
    package func siftDown(_ start: Int) {
        let entries = self.entries
        let n = count
        var parent = start
        let moving = entries[parent]
        while true {
            var child = 2 &* parent &+ 1
            guard child < n else { break }
            if child &+ 1 < n, Entry.precedes(entries[child &+ 1], entries[child]) { child &+= 1 }
            guard Entry.precedes(entries[child], moving) else { break }
            entries[parent] = entries[child]
            placed(parent)
            parent = child
        }
        entries[parent] = moving
        placed(parent)
    }

    /// Every entry, in heap order (not sorted).
    package func forEach(_ body: (Entry) -> Void) {
        for i in 0..<count { body(entries[i]) }
    }

    /// Empties the heap, keeping its storage.
    package func removeAll() {
        if Entry.isIndexed { for i in 0..<count { places[Int(entries[i].slot)] = -1 } }
        entries.deinitialize(count: count)
        count = 0
    }

    /// The entry now at `position` is there: its slot's place says so.
    @inline(__always)
    private func placed(_ position: Int) {
        if Entry.isIndexed { places[Int(entries[position].slot)] = Int32(truncatingIfNeeded: position) }
    }

    @inline(never)
    private func grow() {
        let bigger = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: entries, count: count)
        entries.deallocate()
        entries = bigger
        capacity *= 2
    }
}
