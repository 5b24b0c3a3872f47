// What CommandQueue keeps: a waiting line, a key's state, a running command,
// the entries of its heap of keys ready to start (in the order their first
// waiting line was emitted), and the dictionaries' shrinking once they are
// mostly empty; and what the runner and the tests read of them.

extension CommandQueue {
    struct Waiting {
        var line: EventNumber
        var count: Int64
        /// Submission order, across keys.
        var order: UInt64
        /// Where it comes from (see `.submit`).
        var origin = LineOrigin.policy
    }

    /// A key with a command running or lines waiting (forgotten otherwise).
    struct KeyState {
        var running: EventNumber?
        /// Its waiting lines, in submission order.
        var waiting = FIFO<Waiting>()
    }

    struct Running {
        var key: Key
        var terminated = false
        var killed = false
        /// Its shell exited after a SIGTERM, but its group had a process
        /// left: the next look at the group is due then, the one after
        /// `interval` later.
        var groupCheck: (due: Instant, interval: Nanoseconds)?
    }

    /// Whether line `line`'s command, if it is running, was sent SIGTERM
    /// and SIGKILL.
    package func signalsSent(to line: EventNumber) -> (terminated: Bool, killed: Bool) {
        running[line].map { ($0.terminated, $0.killed) } ?? (false, false)
    }

    /// The storage of `key`'s waiting lines: its size, and where it is (for
    /// the tests: a backlog is kept in place, and given back as it drains).
    func waitingStorage(of key: Key) -> (capacity: Int, address: UnsafeRawPointer?)? {
        keys[key].map { state in (state.waiting.capacity, state.waiting.withWaiting { UnsafeRawPointer($0.baseAddress) }) }
    }

    /// Entries in the ready heap, stale ones included (for the tests).
    var readyEntries: Int { ready.count }
}

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
