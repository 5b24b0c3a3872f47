// How events are assigned to policy states, chosen at compile time: `OneKey`
// (no `--key-field`: every event shares one state and one timer, kept in the
// struct itself) or `ManyKeys` (a state, a timer and a place on the idle list
// per key, found through the key table). The scheduler is written once
// against this protocol and specialised for each, so the unkeyed hot path
// pays for no table, no heap and no array access.
//
// Slots number the states: `OneKey` has only slot 0; `ManyKeys` reuses the
// slots of keys it forgot. What else is kept per key lives with whoever
// needs it, told of a key joining or leaving the table: counts in the
// counting layer (Output/Counting.swift), distinct keys in the observer.

/// Idle keys the key table keeps (see SlotLRU); when one more goes idle, the
/// oldest idle key leaves the table.
package var idleKeysKept: Int { 1024 }

/// Where a key's events go: its slot, and whether the key just joined the
/// key table (then `hash` is its hash and `keysInTable` counts it) or came
/// back from the idle list.
package struct KeySlot {
    package var slot: Int32
    package var joined: Bool
    package var returned: Bool
    package var hash: UInt64
    package var keysInTable: Int
}

package protocol KeyStore<State>: ~Copyable {
    associatedtype State
    associatedtype Timers: SlotTimers
    /// True when events have keys of their own (`--key-field`).
    static var isKeyed: Bool { get }

    init(initialState: State)

    /// The slot of `key`, with the initial state when the key is new, was
    /// forgotten or was idle.
    mutating func slot(for key: UnsafeRawBufferPointer, counters: inout SchedulerStats) -> KeySlot
    /// The policy state of `slot`.
    subscript(state slot: Int32) -> State { get set }
    /// Each slot's one timer.
    var timers: Timers { get set }
    /// The key bytes of `slot` (empty unkeyed), valid until the table changes.
    func key(of slot: Int32) -> UnsafeRawBufferPointer
    /// Forgets the state of `slot`, which went idle. A key that leaves the
    /// table to make room is told to `sink` first (`--count` keeps what it
    /// owes).
    mutating func release<Sink: LineSink & ~Copyable>(_ slot: Int32, counters: inout SchedulerStats,
                                                      telling sink: inout Sink)
    /// Keys with state held.
    var heldKeys: Int { get }
    /// Runs `body` on every key in the table: its slot, its bytes, and
    /// whether it is idle (`--state`'s snapshot).
    func forEachKey(_ body: (Int32, UnsafeRawBufferPointer, Bool) -> Void)
}

// MARK: - One key

/// No `--key-field`: one state for every event.
package struct OneKey<State>: KeyStore {
    package static var isKeyed: Bool { false }

    private var state: State
    package var timers = OneTimer()

    package init(initialState: State) { state = initialState }

    @inline(__always)
    package mutating func slot(for key: UnsafeRawBufferPointer, counters: inout SchedulerStats) -> KeySlot {
        KeySlot(slot: 0, joined: false, returned: false, hash: 0, keysInTable: 1)
    }

    @inline(__always)
    package subscript(state slot: Int32) -> State {
        get { state }
        _modify { yield &state }
    }

    @inline(__always)
    package func key(of slot: Int32) -> UnsafeRawBufferPointer { .empty }

    /// The one state is never forgotten: an idle state is the initial one.
    @inline(__always)
    package mutating func release<Sink: LineSink & ~Copyable>(_ slot: Int32, counters: inout SchedulerStats,
                                                              telling sink: inout Sink) {}

    package var heldKeys: Int { 1 }

    package func forEachKey(_ body: (Int32, UnsafeRawBufferPointer, Bool) -> Void) { body(0, key(of: 0), false) }
}

/// The one timer of the one state.
package struct OneTimer: SlotTimers {
    private var due: Instant?

    package init() {}

    @inline(__always)
    package mutating func set(slot: Int32, due: Instant) { self.due = due }

    @inline(__always)
    package var firstDue: Instant? { due }

    @inline(__always)
    package mutating func popFirst() -> Int32 {
        due = nil
        return 0
    }

    @inline(__always)
    package func due(of slot: Int32) -> Instant? { due }

    package mutating func cancel(slot: Int32) { due = nil }
}

// MARK: - Many keys

/// `--key-field`: a state per key, idle keys forgotten.
package struct ManyKeys<State>: KeyStore, ~Copyable {
    package static var isKeyed: Bool { true }

    private let initialState: State
    /// Each slot's state; `used` slots have ever been handed out.
    private var states: SlotArray<State>
    private var used = 0
    private var keys = KeyTable()
    package var timers = TimerQueue()
    /// Idle keys still in the table, oldest first (at most `idleKeysKept`).
    private var idle = SlotLRU()
    /// Slots no key owns, to be reused.
    private var freeSlots: [Int32] = []

    package init(initialState: State) {
        self.initialState = initialState
        states = SlotArray(empty: initialState)
    }

    @inline(__always)
    package mutating func slot(for key: UnsafeRawBufferPointer, counters: inout SchedulerStats) -> KeySlot {
        let hash = hashBytes(key)
        if let slot = keys.find(key, hash: hash) {
            if idle.contains(slot) {
                // An idle key is back: a fresh state in its old slot.
                idle.remove(slot)
                states[Int(slot)] = initialState
                Self.activate(&counters)
                return KeySlot(slot: slot, joined: false, returned: true, hash: hash, keysInTable: 0)
            }
            return KeySlot(slot: slot, joined: false, returned: false, hash: hash, keysInTable: 0)
        }
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            states.reserve(used)
            slot = Int32(used)
            used += 1
        }
        states[Int(slot)] = initialState
        keys.insert(key, hash: hash, slot: slot)
        Self.activate(&counters)
        return KeySlot(slot: slot, joined: true, returned: false, hash: hash, keysInTable: keys.count)
    }

    @inline(__always)
    private static func activate(_ counters: inout SchedulerStats) {
        counters.activeKeys += 1
        if counters.activeKeys > counters.peakActiveKeys { counters.peakActiveKeys = counters.activeKeys }
    }

    @inline(__always)
    package subscript(state slot: Int32) -> State {
        get { states[Int(slot)] }
        _modify { yield &states.pointer(to: Int(slot)).pointee }
    }

    @inline(__always)
    package func key(of slot: Int32) -> UnsafeRawBufferPointer { keys.withKey(of: slot) { key, _ in key } }

    /// The key goes on the idle list; when that pushes the oldest idle key
    /// off it, that key leaves the table and its slot is free.
    @inline(__always)
    package mutating func release<Sink: LineSink & ~Copyable>(_ slot: Int32, counters: inout SchedulerStats,
                                                              telling sink: inout Sink) {
        counters.activeKeys -= 1
        idle.push(slot)
        if idle.count > idleKeysKept {
            let evicted = idle.popOldest()
            if Sink.counts { keys.withKey(of: evicted) { key, hash in sink.keyLeft(slot: evicted, key: key, hash: hash) } }
            keys.remove(slot: evicted)
            freeSlots.append(evicted)
        }
        if Sink.counts { sink.keyIdled(slot: slot) }
    }

    package var heldKeys: Int { keys.count - idle.count }

    package func forEachKey(_ body: (Int32, UnsafeRawBufferPointer, Bool) -> Void) {
        keys.forEachSlot { slot in keys.withKey(of: slot) { key, _ in body(slot, key, idle.contains(slot)) } }
    }

    /// Slots ever used, and keys in the table (for memory tests).
    var slotCount: Int { used }
    var tableCount: Int { keys.count }
}
