// Slots in the order they were last put on the list, oldest first: a doubly
// linked list through slot numbers (as `TimerHeap` is a heap through them),
// with no bound of its own; its owner says when the oldest must go. Four
// lists are this one:
//
// - the key store's idle keys still in the key table (at most
//   `idleKeysKept`): with a few busy keys, each goes idle at the end of every
//   window and comes back at its next event, and taking it out of the table
//   and putting it back each time was a sixth of a keyed throttle;
// - the forgotten keys whose counts are remembered (ForgottenCounts);
// - the idle keys that owe a count (the counting layer), which count within
//   the same bound as the forgotten ones;
// - the key store's timers while they are set in deadline order
//   (TimerQueue.swift).

struct SlotLRU: ~Copyable {
    /// Per slot: the previous and next listed slot, or `notListed`.
    private var links = SlotArray<(previous: Int32, next: Int32)>(empty: (SlotLRU.notListed, -1))
    /// The least and the most recently listed slot, or -1.
    private(set) var oldest: Int32 = -1
    private(set) var newest: Int32 = -1
    private(set) var count = 0

    /// The `previous` link of a slot that is not on the list.
    private static var notListed: Int32 { -2 }

    init() {}

    @inline(__always)
    func contains(_ slot: Int32) -> Bool {
        Int(slot) < links.capacity && links[Int(slot)].previous != Self.notListed
    }

    /// Puts `slot` (not on the list) on it as its newest.
    @inline(__always)
    mutating func push(_ slot: Int32) {
        let s = Int(slot)
        links.reserve(s)
        // The list's head has no previous: -1, which is not `notListed`.
        links[s] = (newest, -1)
        if newest >= 0 { links[Int(newest)].next = slot } else { oldest = slot }
        newest = slot
        count += 1
    }

    /// Takes `slot` (on the list) off it.
    @inline(__always)
    mutating func remove(_ slot: Int32) {
        let s = Int(slot)
        let (previous, next) = links[s]
        if previous >= 0 { links[Int(previous)].next = next } else { oldest = next }
        if next >= 0 { links[Int(next)].previous = previous } else { newest = previous }
        links[s] = (Self.notListed, -1)
        count -= 1
    }

    /// Takes the oldest slot off the list and returns it (-1 when empty).
    @inline(__always)
    mutating func popOldest() -> Int32 {
        let slot = oldest
        if slot >= 0 { remove(slot) }
        return slot
    }
}
