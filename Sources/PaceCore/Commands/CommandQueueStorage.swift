// What CommandQueue keeps its keys in besides the FIFO of Storage: the
// entries of its heap of keys ready to start (in the order their first
// waiting line was emitted), and the dictionaries' shrinking once they are
// mostly empty.

/// A key ready to start, in the one heap of Storage (a plain one: no
/// index), ordered by its first waiting line's submission (orders are
/// unique, so the keys come out in that order whatever the heap's shape).
/// The heap is a class: the queue that holds it is used in place, never
/// copied.
struct ReadyKey<Key>: HeapEntry {
    var order: UInt64
    var key: Key

    var slot: Int32 { 0 }
    static var isIndexed: Bool { false }
    static func precedes(_ a: ReadyKey, _ b: ReadyKey) -> Bool { a.order < b.order }
}

// MARK: - Tables that shrink

extension Dictionary {
    /// Rebuilds the table smaller once it is mostly empty: a dictionary
    /// never gives back the buckets of entries removed, so one that held a
    /// large backlog (the runner's stored lines, the queue's keys) would keep
    /// its size after the backlog drained. The rebuild copies a quarter of
    /// the table at most, paid for by the removals that emptied the rest.
    mutating func releaseSpareCapacity() {
        let kept = 1024
        guard capacity > kept && count * 4 < capacity else { return }
        var smaller = Dictionary(minimumCapacity: count)
        for (key, value) in self { smaller[key] = value }
        self = smaller
    }
}
