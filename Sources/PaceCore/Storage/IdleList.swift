// Idle keys still in the key table, oldest first: a doubly linked list through
// slot numbers, as `TimerQueue` is a heap through them.
//
// A key whose state goes idle is forgotten: its state is dropped and it no
// longer counts as active. Its bytes stay in the key table for a while,
// though, on this list of at most `capacity` keys: with a few busy keys, each
// goes idle at the end of every window and comes back at its next event, and
// taking it out of the table and putting it back each time (a backward-shift
// deletion, a key copy, an insertion) was a sixth of a keyed throttle. A key
// that comes back finds its slot and starts from the initial state, as a new
// key would; when the list is full, the oldest idle key leaves the table.
// Memory still follows the keys active within one window, plus this bound.

struct IdleList: ~Copyable {
    /// Idle keys kept in the table at most.
    static let capacity = 1024

    /// Per slot: the previous and next idle slot, or `notIdle`.
    private var links = SlotArray<(previous: Int32, next: Int32)>(empty: (IdleList.notIdle, -1))
    private var oldest: Int32 = -1
    private var newest: Int32 = -1
    private(set) var count = 0

    /// The `previous` link of a slot that is not on the list.
    private static let notIdle: Int32 = -2

    init() {}


    @inline(__always)
    func contains(_ slot: Int32) -> Bool {
        Int(slot) < links.capacity && links[Int(slot)].previous != Self.notIdle
    }

    /// Puts `slot` on the list as its newest; returns the oldest idle slot
    /// it pushed off the list (now out of it) when the list was full.
    @inline(__always)
    mutating func push(_ slot: Int32) -> Int32? {
        let s = Int(slot)
        links.reserve(s)
        links[s] = (newest, -1)
        if newest >= 0 { links[Int(newest)].next = slot } else { oldest = slot }
        // The list's head has no previous: -1, which is not `notIdle`.
        newest = slot
        count += 1
        guard count > Self.capacity else { return nil }
        let evicted = oldest
        remove(evicted)
        return evicted
    }

    /// Takes `slot` off the list.
    @inline(__always)
    mutating func remove(_ slot: Int32) {
        let s = Int(slot)
        let (previous, next) = links[s]
        if previous >= 0 { links[Int(previous)].next = next } else { oldest = next }
        if next >= 0 { links[Int(next)].previous = previous } else { newest = previous }
        links[s] = (Self.notIdle, -1)
        count -= 1
    }
}
