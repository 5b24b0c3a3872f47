// Storage: the data structures pace's other rooms are built from, each
// written once and reused: a slot array (this file) and its one growth step,
// the indexed timer heap, the LRU list of idle keys, the key store's timers
// made of those two, the byte-key table with its key records and hashing,
// and the byte FIFO of held lines. None of them
// knows what a policy, a line or a clock is.
//
// A slot array is a raw buffer of per-slot records, indexed by a key's slot
// number without a bounds check or a uniqueness check (the owner grows it
// before it indexes a new slot), as the scheduler's per-line path wants it.

/// Per-slot records in one raw buffer, every record initialised (to `empty`
/// until set). Noncopyable: it owns the buffer.
package struct SlotArray<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    /// Records allocated (and initialised).
    package private(set) var capacity: Int
    private let empty: Element

    package init(empty: Element, capacity: Int = 16) {
        self.empty = empty
        self.capacity = max(capacity, 1)
        base = .allocate(capacity: self.capacity)
        base.initialize(repeating: empty, count: self.capacity)
    }

    deinit {
        base.deinitialize(count: capacity)
        base.deallocate()
    }

    /// The record of `slot`, which must be below `capacity`.
    @inline(__always)
    package subscript(slot: Int) -> Element {
        get { base[slot] }
        nonmutating _modify { yield &base[slot] }
    }

    /// The record of `slot` in place, for code that works on its fields.
    @inline(__always)
    package func pointer(to slot: Int) -> UnsafeMutablePointer<Element> { base + slot }

    /// Makes room for `slot` (at least doubling), new records `empty`.
    @inline(__always)
    package mutating func reserve(_ slot: Int) {
        if slot >= capacity { grow(toInclude: slot) }
    }

    /// Every record, in slot order.
    package func forEach(_ body: (Element) -> Void) {
        for i in 0..<capacity { body(base[i]) }
    }

    @inline(never)
    private mutating func grow(toInclude slot: Int) {
        let newCapacity = max(capacity * 2, slot + 1)
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        bigger.moveInitialize(from: base, count: capacity)
        (bigger + capacity).initialize(repeating: empty, count: newCapacity - capacity)
        base.deallocate()
        base = bigger
        capacity = newCapacity
    }
}
