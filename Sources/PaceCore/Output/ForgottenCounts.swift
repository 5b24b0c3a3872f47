// `--count` for keys the key table forgot. A key's discards since its last
// output line stay with its slot while the key is active or on the idle list;
// when the idle list pushes a key out of the table while it still owes a
// count, the key's bytes and the count move here, so its next output line
// still counts them (SPEC's Accounting). To keep memory bounded, at most
// `capacity` keys are remembered, the least recently seen forgotten first;
// the discards of a key forgotten here are never counted, and `uncounted`
// says how many.
//
// The bound is the total of idle keys remembered with a count: the idle keys
// still in the key table that owe one keep it in their slots, and count too
// (the counting layer calls `makeRoom(besides:)`).
//
// Entries are numbered like slots and found through a KeyTable; a SlotLRU
// through entry numbers keeps them oldest first.

/// A class: it owns a (noncopyable) key table; the counting layer holds the
/// one reference.
final class ForgottenCounts {
    /// SPEC's bound: keys remembered at most.
    static let defaultCapacity = 1_000_000

    let capacity: Int
    private var table = KeyTable()
    /// Per entry: the count it owes.
    private var counts: [Int64] = []
    /// The entries, least recently remembered first.
    private var order = SlotLRU()
    private var free: [Int32] = []
    /// Discards of keys forgotten here, or given up elsewhere to stay within
    /// the bound, never counted.
    private(set) var uncounted: Int64 = 0

    init(capacity: Int = ForgottenCounts.defaultCapacity) {
        precondition(capacity > 0, "ForgottenCounts: capacity must be positive")
        self.capacity = capacity
    }

    /// Keys remembered.
    var count: Int { table.count }

    /// Runs `body` on each key remembered and its count (`--state`).
    func forEach(_ body: (UnsafeRawBufferPointer, Int64) -> Void) {
        table.forEachSlot { entry in table.withKey(of: entry) { key, _ in body(key, counts[Int(entry)]) } }
    }

    /// Remembers that `key` (not remembered yet) owes `owed` discards; when
    /// that makes one too many, the oldest is forgotten.
    func remember(_ key: UnsafeRawBufferPointer, hash: UInt64, owed: Int64) {
        if table.count == capacity { forgetOldest() }
        let entry: Int32
        if let reused = free.popLast() {
            entry = reused
        } else {
            entry = Int32(counts.count)
            counts.append(0)
        }
        counts[Int(entry)] = owed
        table.insert(key, hash: hash, slot: entry)
        order.push(entry)
    }

    /// The count `key` owes, which it takes back (0 when not remembered).
    @inline(__always)
    func take(_ key: UnsafeRawBufferPointer, hash: UInt64) -> Int64 {
        guard table.count > 0, let entry = table.find(key, hash: hash) else { return 0 }
        let owed = counts[Int(entry)]
        order.remove(entry)
        table.remove(slot: entry)
        free.append(entry)
        return owed
    }

    /// Forgets the oldest keys until they and `others` (idle keys that keep
    /// their counts elsewhere) are within the capacity, or none is left here;
    /// false when `others` alone are still more.
    func makeRoom(besides others: Int) -> Bool {
        while table.count > 0 && table.count + others > capacity { forgetOldest() }
        return others <= capacity
    }

    /// A count kept elsewhere is given up to stay within the bound.
    func giveUp(_ owed: Int64) { uncounted += owed }

    /// The least recently remembered key is forgotten; its discards go
    /// uncounted.
    private func forgetOldest() {
        let victim = order.popOldest()
        uncounted += counts[Int(victim)]
        table.remove(slot: victim)
        free.append(victim)
    }
}
