// How events are assigned to policy states, chosen at compile time as the
// observer is: `OneKey` (no `--key-field`: every event shares one state and
// one timer, kept in the struct itself) or `ManyKeys` (a state, a timer and a
// place on the idle list per key, found through the key table). The scheduler
// is written once against this protocol and specialised for each, so the
// unkeyed hot path pays for no table, no heap and no array access.
//
// Slots number the states: `OneKey` has only slot 0; `ManyKeys` reuses the
// slots of keys it forgot.

public protocol KeySpace<State>: ~Copyable {
    associatedtype State
    /// True when events have keys of their own (`--key-field`).
    static var isKeyed: Bool { get }

    /// `countDiscards`: keep each key's `--count` (see `owe`).
    init(initialState: State, countDistinctKeys: Bool, countDiscards: Bool)

    /// The slot of `key`, created (with the initial state) when the key is
    /// new or was forgotten.
    mutating func slot(for key: UnsafeRawBufferPointer, counters: inout SchedulerStats) -> Int32
    /// Runs `policy` on the state of `slot`.
    mutating func reduce<P: Policy>(_ policy: P, _ slot: Int32, _ action: PolicyAction<P.Payload>) -> Effects<P.Payload>
    where P.State == State

    /// For `--trace`: `policy.reopening` in the state of `slot`.
    func reopening<P: Policy>(_ policy: P, _ slot: Int32) -> Instant? where P.State == State

    /// Sets (or moves) the timer of `slot`.
    mutating func setTimer(_ slot: Int32, due: Instant)
    /// When the earliest timer is due.
    var nextDue: Instant? { get }
    /// Removes the earliest timer; returns its slot.
    mutating func popEarliest() -> Int32
    /// When the timer of `slot` is due, if it has one.
    func due(of slot: Int32) -> Instant?

    /// Forgets the state of `slot`, which went idle.
    mutating func release(_ slot: Int32, counters: inout SchedulerStats)
    /// Keys with state held.
    var heldKeys: Int { get }

    /// `--count` (only called when counting): one more discard of the key of
    /// `slot` since its last output line. It stays with the key while the
    /// key is idle, and is remembered for a while once the key is forgotten.
    mutating func owe(_ slot: Int32)
    /// `--count`: the discards the key of `slot` owes, now handed out (0 again).
    mutating func takeOwed(_ slot: Int32) -> Int64
    /// `--count`: discards of keys forgotten with their count, never counted.
    var uncountedDiscards: Int64 { get }
    /// `--count`: the keys in the table and the keys whose counts are
    /// remembered after them are more than ForgottenCounts keeps, so a count
    /// may now have to be given up, and lapsed keys are forgotten on time
    /// (see Scheduler, "Lapsed keys").
    var countsPassTheirBound: Bool { get }
    /// `--stats`: the distinct-key count when it is an estimate (past
    /// DistinctKeys' limit), else nil (the counters' count is exact).
    var distinctKeysEstimate: Int64? { get }
}

// MARK: - One key

/// No `--key-field`: one state for every event.
public struct OneKey<State>: KeySpace {
    public static var isKeyed: Bool { false }

    private var state: State
    private var due: Instant?
    private var owed: Int64 = 0

    public init(initialState: State, countDistinctKeys: Bool, countDiscards: Bool) {
        state = initialState
    }

    @inline(__always)
    public mutating func slot(for key: UnsafeRawBufferPointer, counters: inout SchedulerStats) -> Int32 { 0 }

    @inline(__always)
    public mutating func reduce<P: Policy>(_ policy: P, _ slot: Int32, _ action: PolicyAction<P.Payload>)
        -> Effects<P.Payload> where P.State == State {
        policy.reduce(into: &state, action)
    }

    public func reopening<P: Policy>(_ policy: P, _ slot: Int32) -> Instant? where P.State == State {
        policy.reopening(in: state)
    }

    @inline(__always)
    public mutating func setTimer(_ slot: Int32, due: Instant) { self.due = due }

    @inline(__always)
    public var nextDue: Instant? { due }

    @inline(__always)
    public mutating func popEarliest() -> Int32 {
        due = nil
        return 0
    }

    @inline(__always)
    public func due(of slot: Int32) -> Instant? { due }

    /// The one state is never forgotten: an idle state is the initial one.
    @inline(__always)
    public mutating func release(_ slot: Int32, counters: inout SchedulerStats) {}

    public var heldKeys: Int { 1 }

    @inline(__always)
    public mutating func owe(_ slot: Int32) { owed += 1 }

    @inline(__always)
    public mutating func takeOwed(_ slot: Int32) -> Int64 {
        defer { owed = 0 }
        return owed
    }

    public var uncountedDiscards: Int64 { 0 }

    public var countsPassTheirBound: Bool { false }

    public var distinctKeysEstimate: Int64? { nil }
}

// MARK: - Many keys

/// `--key-field`: a state per key, idle keys forgotten.
public struct ManyKeys<State>: KeySpace, ~Copyable {
    public static var isKeyed: Bool { true }

    private let initialState: State
    /// Each slot's state; `used` of them are initialised.
    private var states: UnsafeMutablePointer<State>
    private var allocated: Int
    private var used = 0
    private var keys = KeyTable()
    private var timers = TimerQueue()
    private var idle = IdleList()
    /// Slots no key owns, to be reused.
    private var freeSlots: [Int32] = []
    /// Every key seen, for `--stats`' distinct-key count; only kept when
    /// asked for, since it grows with the number of keys ever seen.
    private var seenKeys: DistinctKeys?
    /// `--count`'s per-slot counts (nil when not counting), kept out of
    /// line so that a run without it carries one nil reference.
    private var counting: SlotCounts?
    /// `--count`: see `countsPassTheirBound`.
    private var countsPastBound = false

    public init(initialState: State, countDistinctKeys: Bool, countDiscards: Bool) {
        self.init(initialState: initialState, countDistinctKeys: countDistinctKeys, countDiscards: countDiscards,
                  forgottenCapacity: ForgottenCounts.defaultCapacity)
    }

    /// `forgottenCapacity`: how many forgotten keys' counts are remembered
    /// (tests make it small).
    init(initialState: State, countDistinctKeys: Bool, countDiscards: Bool, forgottenCapacity: Int) {
        self.initialState = initialState
        allocated = 16
        states = .allocate(capacity: allocated)
        if countDistinctKeys { seenKeys = DistinctKeys() }
        if countDiscards { counting = SlotCounts(capacity: allocated, forgottenCapacity: forgottenCapacity) }
    }

    deinit {
        states.deinitialize(count: used)
        states.deallocate()
    }

    @inline(__always)
    public mutating func slot(for key: UnsafeRawBufferPointer, counters: inout SchedulerStats) -> Int32 {
        let hash = hashBytes(key)
        if let slot = keys.find(key, hash: hash) {
            if idle.contains(slot) {
                // An idle key is back: a fresh state in its old slot.
                idle.remove(slot)
                states[Int(slot)] = initialState
                Self.activate(&counters)
            }
            return slot
        }
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            states[Int(slot)] = initialState
        } else {
            if used == allocated { grow() }
            slot = Int32(used)
            (states + used).initialize(to: initialState)
            used += 1
        }
        // A freed slot owes nothing (its count left with its key); a key
        // forgotten while it owed a count takes it back.
        if counting != nil { restoreCount(of: slot, key, hash: hash) }
        keys.insert(key, hash: hash, slot: slot)
        if counting != nil { countsPastBound = countsPassBound() }
        Self.activate(&counters)
        if seenKeys != nil, seenKeys!.insert(key, hash: hash) { counters.distinctKeys += 1 }
        return slot
    }

    @inline(__always)
    private static func activate(_ counters: inout SchedulerStats) {
        counters.activeKeys += 1
        if counters.activeKeys > counters.peakActiveKeys { counters.peakActiveKeys = counters.activeKeys }
    }

    @inline(__always)
    public mutating func reduce<P: Policy>(_ policy: P, _ slot: Int32, _ action: PolicyAction<P.Payload>)
        -> Effects<P.Payload> where P.State == State {
        policy.reduce(into: &states[Int(slot)], action)
    }

    public func reopening<P: Policy>(_ policy: P, _ slot: Int32) -> Instant? where P.State == State {
        policy.reopening(in: states[Int(slot)])
    }

    @inline(__always)
    public mutating func setTimer(_ slot: Int32, due: Instant) { timers.set(slot: slot, due: due) }

    @inline(__always)
    public var nextDue: Instant? { timers.first?.due }

    @inline(__always)
    public mutating func popEarliest() -> Int32 { timers.popFirst().slot }

    public func due(of slot: Int32) -> Instant? { timers.due(of: slot) }

    /// The key goes on the idle list; when that pushes the oldest idle key
    /// off it, that key leaves the table and its slot is free.
    @inline(__always)
    public mutating func release(_ slot: Int32, counters: inout SchedulerStats) {
        counters.activeKeys -= 1
        if let evicted = idle.push(slot) {
            if counting != nil { forgetCount(of: evicted) }
            keys.remove(slot: evicted)
            freeSlots.append(evicted)
        }
    }

    public var heldKeys: Int { keys.count - idle.count }

    /// Slots ever used, and keys in the table (for memory tests).
    var slotCount: Int { used }
    var tableCount: Int { keys.count }

    // `--count` off the hot path: out of line, so that the per-line code
    // inlined around them is the same with or without counting.

    /// A key new to the table owes what it owed when it was forgotten.
    @inline(never)
    private func restoreCount(of slot: Int32, _ key: UnsafeRawBufferPointer, hash: UInt64) {
        counting!.owed[Int(slot)] = counting!.forgotten.take(key, hash: hash)
    }

    /// The key of `slot` leaves the table: what it owes is remembered.
    @inline(never)
    private func forgetCount(of slot: Int32) {
        let counting = counting!
        guard counting.owed[Int(slot)] > 0 else { return }
        counting.forgotten.remember(keyOf: slot, in: keys, owed: counting.owed[Int(slot)])
        counting.owed[Int(slot)] = 0
    }

    @inline(__always)
    public mutating func owe(_ slot: Int32) { counting.unsafelyUnwrapped.owed[Int(slot)] += 1 }

    @inline(__always)
    public mutating func takeOwed(_ slot: Int32) -> Int64 {
        let owed = counting.unsafelyUnwrapped.owed
        let count = owed[Int(slot)]
        owed[Int(slot)] = 0
        return count
    }

    public var uncountedDiscards: Int64 { counting?.forgotten.uncounted ?? 0 }

    @inline(__always)
    public var countsPassTheirBound: Bool { countsPastBound }

    /// Whether the keys in the table and the forgotten keys with counts are
    /// more than ForgottenCounts keeps. Their sum grows only when a key joins
    /// the table, so it is worked out then: between two new keys it can only
    /// have fallen, and a `true` that is no longer so only fires lapsed
    /// timers on time.
    @inline(never)
    private func countsPassBound() -> Bool {
        let forgotten = counting!.forgotten
        return keys.count + forgotten.count > forgotten.capacity
    }

    public var distinctKeysEstimate: Int64? {
        guard let seenKeys, seenKeys.isEstimated else { return nil }
        return seenKeys.count
    }

    private mutating func grow() {
        let newAllocated = allocated * 2
        let bigger = UnsafeMutablePointer<State>.allocate(capacity: newAllocated)
        bigger.moveInitialize(from: states, count: used)
        states.deallocate()
        states = bigger
        counting?.grow(keeping: used, to: newAllocated)
        allocated = newAllocated
    }
}

/// `--count` with `--key-field`: each slot's discards since its key's last
/// output line, and the counts of keys the table forgot while they owed one.
final class SlotCounts {
    private(set) var owed: UnsafeMutablePointer<Int64>
    var forgotten: ForgottenCounts

    init(capacity: Int, forgottenCapacity: Int) {
        owed = .allocate(capacity: capacity)
        forgotten = ForgottenCounts(capacity: forgottenCapacity)
    }

    deinit { owed.deallocate() }

    /// Room for `allocated` slots, the first `used` kept.
    func grow(keeping used: Int, to allocated: Int) {
        let more = UnsafeMutablePointer<Int64>.allocate(capacity: allocated)
        more.moveInitialize(from: owed, count: used)
        owed.deallocate()
        owed = more
    }
}
