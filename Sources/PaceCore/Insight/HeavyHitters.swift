// `--stats`' per-key table in bounded memory: the space-saving summary
// (Metwally, Agrawal, El Abbadi 2005) of at most `capacity` keys.
//
// While no more than `capacity` distinct keys have been seen, every key has
// an entry and every number is exact. After that, a key without an entry
// takes the place of the entry with the fewest events in, and inherits that
// count as its possible error: its `in` is then at most `error` too high
// (the events it is credited with before it had an entry), and what it
// emitted and dropped is counted from when it got its entry, so each is at
// most `error` too low. A key with more than (events in) / capacity events
// always has an entry, so the busiest keys are the ones shown.
//
// Entries are numbered like slots and found through a KeyTable; the one heap
// of Storage, indexed by entry number and ordered by count, finds the entry
// to replace.

/// A class: it owns a (noncopyable) key table, and the observer that holds
/// it hands the one reference on.
final class HeavyHitters {
    /// Keys counted exactly at most, then the summary's size.
    static let defaultCapacity = 100_000

    let capacity: Int
    private var table = KeyTable()
    /// Per entry: its events in since it got its entry, the count it
    /// inherited, and its emissions since it got its entry.
    private var seen: [Int64] = []
    private var errors: [Int64] = []
    private var emitted: [Int64] = []
    /// Every entry with its `seen + errors`, fewest first.
    private let heap = IndexedHeap<HitCount>()
    /// An entry was ever replaced: the table is a summary, no longer exact.
    private(set) var isSummary = false

    init(capacity: Int = HeavyHitters.defaultCapacity) {
        precondition(capacity > 0, "HeavyHitters: capacity must be positive")
        self.capacity = capacity
    }

    /// One more event of `key`.
    func entered(_ key: UnsafeRawBufferPointer) {
        let hash = hashBytes(key)
        if let entry = table.find(key, hash: hash) {
            seen[Int(entry)] += 1
            counted(at: heap.place(of: entry))
            return
        }
        if seen.count < capacity {
            let entry = Int32(seen.count)
            seen.append(1)
            errors.append(0)
            emitted.append(0)
            table.insert(key, hash: hash, slot: entry)
            heap.insert(HitCount(events: 1, slot: entry))
            return
        }
        // The entry with the fewest events in makes room.
        isSummary = true
        let entry = heap.first!.slot
        let e = Int(entry)
        table.remove(slot: entry)
        errors[e] += seen[e]
        seen[e] = 1
        emitted[e] = 0
        table.insert(key, hash: hash, slot: entry)
        counted(at: 0)
    }

    /// The heap entry at `position` has one more event in: it moves down.
    private func counted(at position: Int) {
        heap[position].events += 1
        heap.siftDown(position)
    }

    /// One more emission of `key` (ignored when it has no entry).
    func emitted(_ key: UnsafeRawBufferPointer) {
        if let entry = table.find(key, hash: hashBytes(key)) { emitted[Int(entry)] += 1 }
    }

    /// `lines` emissions of `key` were never run after all (`--exec`: a
    /// signal, `--on-busy drop`): they count as dropped. Not below 0: in a
    /// summary, the emissions may predate the key's entry.
    func notRun(_ key: UnsafeRawBufferPointer, lines: Int64) {
        if let entry = table.find(key, hash: hashBytes(key)) {
            emitted[Int(entry)] = max(0, emitted[Int(entry)] - lines)
        }
    }

    /// The `limit` keys with the most events in (ties by key bytes): one
    /// pass over the entries, keeping the best `limit` in order.
    func top(_ limit: Int) -> [KeyCount] {
        var best: [Int] = []
        for e in 0..<seen.count {
            if best.count == limit, let last = best.last, !ranksBefore(e, last) { continue }
            var i = best.count
            while i > 0 && ranksBefore(e, best[i - 1]) { i -= 1 }
            best.insert(e, at: i)
            if best.count > limit { best.removeLast() }
        }
        return best.map { e in
            KeyCount(key: table.key(of: Int32(e)), eventsIn: seen[e] + errors[e], emitted: emitted[e], error: errors[e])
        }
    }

    /// More events in, or as many and a key first in byte order.
    private func ranksBefore(_ a: Int, _ b: Int) -> Bool {
        let (ca, cb) = (seen[a] + errors[a], seen[b] + errors[b])
        if ca != cb { return ca > cb }
        return table.withKey(of: Int32(a)) { ka, _ in
            table.withKey(of: Int32(b)) { kb, _ in ka.lexicographicallyPrecedes(kb) }
        }
    }
}

/// An entry of the summary in its heap: its events in, error included.
private struct HitCount: HeapEntry {
    var events: Int64
    var slot: Int32

    static func precedes(_ a: HitCount, _ b: HitCount) -> Bool { a.events < b.events }
}
