// What CommandQueue keeps its keys in besides the FIFO of Storage: the heap
// of keys ready to start, in the order their first waiting line was
// emitted, and the dictionaries' shrinking once they are mostly empty.

/// A binary min-heap of (order, key): the key whose first waiting line was
/// submitted earliest comes out first. Orders are unique.
struct ReadyHeap<Key> {
    private var entries: [(order: UInt64, key: Key)] = []

    var count: Int { entries.count }

    mutating func push(order: UInt64, key: Key) {
        entries.append((order, key))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].order < entries[parent].order else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> (UInt64, Key)? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < entries.count && entries[left].order < entries[smallest].order { smallest = left }
                if right < entries.count && entries[right].order < entries[smallest].order { smallest = right }
                if smallest == parent { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (first.order, first.key)
    }
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
