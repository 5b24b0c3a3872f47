// The one runtime. It feeds events and timer firings to a policy, one state
// per key, and carries out the effects the policy returns: writes emitted
// lines to the sink and keeps each key's single timer in the TimerQueue.
// Replay, live mode and the tests all drive it the same way:
//
//   advance(to: t)      fire every timer due at or before t, in order
//   send(line, key, t)  advance(to: t), then hand the event to its key's policy
//   finish()            end of input: run the clock on until no timer is left
//
// It never reads a clock. Whoever drives it says what time it is: the replay
// loop from timestamps, the live loop from the monotonic clock, a test from
// its TestClock.
//
// Ordering. SPEC orders output by emission time, then by input order of the
// emitted events. Immediate emissions happen in input order by construction.
// Timers due at one instant are fired as a batch sorted by the event each one
// holds, so two keys whose deadlines coincide come out in input order.
//
// Events are numbered by whoever drives the scheduler: replay and live pass
// each line's input line number, so `--trace` names lines without a mapping
// table. Numbers only need to increase.
//
// Observing. `--trace`, `--stats`' per-key table and `--marbles` watch the
// run through an `Observer`: every event that enters, every emission, every
// event a policy discards. The scheduler is specialised for it, and with
// `NoObserver` (`isActive` false) every call and the work to prepare it
// compile away: the hot path is unchanged when none of them is asked for.

/// Watches a scheduler's events. Calls come in the order fates become
/// certain; `line` bytes are valid only for the call.
public protocol SchedulerObserver {
    /// False only for `NoObserver`: the scheduler then makes no calls.
    static var isActive: Bool { get }
    /// An event entered its key's policy.
    mutating func entered(_ event: EventNumber, line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                          at time: Instant)
    /// An event was written; `atEnd` when end of input released it.
    mutating func emitted(_ event: EventNumber, line: UnsafeRawBufferPointer, at time: Instant, atEnd: Bool)
    /// A pending event was replaced by a later one of its key.
    mutating func replaced(_ event: EventNumber, by later: EventNumber)
    /// An incoming event was dropped inside a window ending at `windowEnd`.
    mutating func dropped(_ event: EventNumber, windowEnd: Instant?)
    /// A line that never reached the policy (the driver reports these).
    mutating func bypassed(_ line: EventNumber, _ why: Bypass, at time: Instant)
    /// A good moment to write out what was gathered (the drivers call it).
    mutating func flush()
}

/// Why a line never reached the policy.
public enum Bypass: Equatable, Sendable {
    /// Empty (replay): skipped.
    case empty
    /// Its timestamp did not parse, and `--on-bad-time skip` dropped it.
    case badTimeSkipped
    /// Its timestamp did not parse, and `--on-bad-time pass` wrote it.
    case badTimePassed
}

/// The observer of a run that watches nothing.
public struct NoObserver: SchedulerObserver {
    public static var isActive: Bool { false }
    public init() {}
    @inline(__always)
    public mutating func entered(_ event: EventNumber, line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
                                 at time: Instant) {}
    @inline(__always)
    public mutating func emitted(_ event: EventNumber, line: UnsafeRawBufferPointer, at time: Instant, atEnd: Bool) {}
    @inline(__always)
    public mutating func replaced(_ event: EventNumber, by later: EventNumber) {}
    @inline(__always)
    public mutating func dropped(_ event: EventNumber, windowEnd: Instant?) {}
    @inline(__always)
    public mutating func bypassed(_ line: EventNumber, _ why: Bypass, at time: Instant) {}
    @inline(__always)
    public mutating func flush() {}
}

/// Counters the scheduler keeps for `--stats`.
public struct SchedulerStats: Equatable, Sendable {
    public var eventsIn: Int64 = 0
    public var emitted: Int64 = 0
    public var distinctKeys: Int64 = 0
    public var activeKeys: Int64 = 0
    public var peakActiveKeys: Int64 = 0
    public init() {}
}

public struct Scheduler<P: Policy, Sink: LineSink, Observer: SchedulerObserver> where P.Payload == EventNumber {
    struct Slot {
        var state: P.State
        /// The event the state holds back (`P.pending`); its bytes are in
        /// `pendingLines`, or at `borrowedLine` (see `send(borrowing:)`).
        var pendingNumber: EventNumber = 0
        var borrowedLine: UnsafeRawBufferPointer?
        /// The key went idle (its state is forgotten) but is still in the
        /// key table, on the list of idle keys (see `release`).
        var idle = false
        var idlePrevious: Int32 = -1
        var idleNext: Int32 = -1
    }

    public let policy: P
    public let keyed: Bool
    /// The sink, reachable so the driver can flush it.
    public var sink: Sink
    /// What watches the run (`NoObserver` unless asked for).
    public var observer: Observer
    private var counters = SchedulerStats()
    /// The counters for `--stats`. Unkeyed, the one shared state counts as
    /// one key once an event has come.
    public var stats: SchedulerStats {
        guard !keyed else { return counters }
        var unkeyed = counters
        unkeyed.distinctKeys = counters.eventsIn > 0 ? 1 : 0
        unkeyed.peakActiveKeys = counters.eventsIn > 0 ? 1 : 0
        return unkeyed
    }
    /// Inside `finish`: emissions are of events still pending at end of input.
    private var finishing = false

    /// Keyed, each key's slot (free ones are reused).
    private var slots: [Slot] = []
    /// Unkeyed, the one state and its one timer are kept here instead of in
    /// `slots` and `timers`: every line of an unkeyed replay goes through
    /// them, and the arrays cost a uniqueness check and a bounds check on
    /// each access. Its pending line is slot 0 of `pendingLines`.
    private var sole: Slot
    private var soleDue: Instant?
    /// The bytes of each slot's pending event.
    private var pendingLines = SlotBytes()
    private var freeSlots: [Int32] = []
    /// Idle keys still in the key table, oldest first (a list through
    /// `Slot.idlePrevious/idleNext`).
    private var oldestIdle: Int32 = -1
    private var newestIdle: Int32 = -1
    private var idleCount = 0
    private var keys = KeyTable()
    private var timers = TimerQueue()
    private var batch: [Int32] = []
    /// Slots that may hold a borrowed line (some no longer do).
    private var borrowingSlots: [Int32] = []
    private var lastEvent: EventNumber = 0
    /// Hashes of every key seen, for `--stats`' distinct-key count; only kept
    /// when asked for, since it grows with the number of keys ever seen.
    private var seenKeys: Set<UInt64>?

    /// - Parameters:
    ///   - keyed: one policy state per key (`--key-field`); otherwise every
    ///     event shares one state and the key passed to `send` is ignored.
    ///   - countDistinctKeys: keep the set needed for the distinct-key count.
    ///   - observer: what watches the run (see `SchedulerObserver`).
    public init(policy: P, keyed: Bool, sink: Sink, observer: Observer, countDistinctKeys: Bool = false) {
        self.policy = policy
        self.keyed = keyed
        self.sink = sink
        self.observer = observer
        sole = Slot(state: policy.initialState)
        if countDistinctKeys { seenKeys = [] }
        if !keyed { counters.activeKeys = 1 }
    }

    /// When the next timer is due, if any (live mode sleeps until then).
    public var nextDeadline: Instant? { keyed ? timers.first?.due : soleDue }

    /// Number of keys with state held (for memory checks and tests).
    public var heldKeys: Int { keyed ? keys.count - idleCount : 1 }

    // MARK: - Driving

    /// Fires every timer due at or before `now`, earliest first.
    @inline(__always)
    public mutating func advance(to now: Instant) throws(OutputError) {
        if !keyed {
            while let due = soleDue, due <= now { try fireSole(stampedAt: nil) }
            return
        }
        while let first = timers.first, first.due <= now {
            try fireBatch(stampedAt: nil)
        }
    }

    /// Hands one event to its key's policy, after firing what is due.
    /// `line` and `key` need only live for the call: bytes the policy holds
    /// back are copied into the key's slot.
    @inline(__always)
    public mutating func send(_ line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, at t: Instant) throws(OutputError) {
        try send(line, key: key, at: t, number: lastEvent + 1, borrowing: false)
    }

    /// `send`, the event numbered `number` (its input line number; numbers
    /// must increase from one call to the next).
    @inline(__always)
    public mutating func send(_ line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, at t: Instant,
                              number: EventNumber) throws(OutputError) {
        try send(line, key: key, at: t, number: number, borrowing: false)
    }

    /// `send`, keeping the bytes the policy holds back where they are, not
    /// copied: the caller promises that `line` stays valid and unchanged
    /// until it calls `keepBorrowedLines()`. Replay reads lines as slices of
    /// its read buffer, which stays put until the next read; a debounce holds
    /// back every line, most of them replaced before that read, so copying
    /// them all (a memcpy and a buffer check a line) was wasted work.
    /// The event's number is its input line number, as `send(_:key:at:number:)`.
    @inline(__always)
    mutating func send(borrowing line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, at t: Instant,
                       number: EventNumber) throws(OutputError) {
        try send(line, key: key, at: t, number: number, borrowing: true)
    }

    /// Copies every borrowed line that a slot still holds into the slot's
    /// own buffer: the bytes are about to change.
    mutating func keepBorrowedLines() {
        if let line = sole.borrowedLine {
            pendingLines.store(line, in: 0)
            sole.borrowedLine = nil
        }
        for slot in borrowingSlots {
            let s = Int(slot)
            if let line = slots[s].borrowedLine {
                pendingLines.store(line, in: slot)
                slots[s].borrowedLine = nil
            }
        }
        borrowingSlots.removeAll(keepingCapacity: true)
    }

    /// Borrowing slots listed before they are copied; past this the lines are
    /// copied at once, which keeps the list (and its memory) small whatever
    /// the number of lines a read brings.
    private static var borrowingLimit: Int { 1024 }

    @inline(__always)
    private mutating func send(_ line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, at t: Instant,
                               number: EventNumber, borrowing: Bool) throws(OutputError) {
        try advance(to: t)
        lastEvent = number
        counters.eventsIn += 1
        if Observer.isActive { observer.entered(number, line: line, key: key, at: t) }
        if !keyed {
            try sendSole(line, number, at: t, borrowing: borrowing)
            return
        }
        let slot = slotFor(key: key)
        let s = Int(slot)
        let effects = policy.reduce(into: &slots[s].state, .event(number, at: t))
        if let emitted = effects.emit {
            precondition(emitted == number, "Scheduler: an event's reaction emitted another event")
            counters.emitted += 1
            if Observer.isActive { observer.emitted(number, line: line, at: t, atEnd: false) }
            try sink.emit(line, at: t, number: number)
        }
        if let due = effects.schedule { timers.set(slot: slot, due: due) }
        if Observer.isActive, let discarded = effects.discarded {
            if discarded == number {
                observer.dropped(number, windowEnd: timers.due(of: slot))
            } else {
                observer.replaced(discarded, by: number)
            }
        }
        if policy.pending(in: slots[s].state) == number {
            slots[s].pendingNumber = number
            if borrowing {
                if slots[s].borrowedLine == nil {
                    if borrowingSlots.count == Self.borrowingLimit { keepBorrowedLines() }
                    borrowingSlots.append(slot)
                }
                slots[s].borrowedLine = line
            } else {
                slots[s].borrowedLine = nil
                pendingLines.store(line, in: slot)
            }
        }
        if policy.isIdle(slots[s].state) { release(slot) }
    }

    /// `send` when unkeyed: the same steps on `sole`.
    @inline(__always)
    private mutating func sendSole(_ line: UnsafeRawBufferPointer, _ number: EventNumber, at t: Instant,
                                   borrowing: Bool) throws(OutputError) {
        let effects = policy.reduce(into: &sole.state, .event(number, at: t))
        if let emitted = effects.emit {
            precondition(emitted == number, "Scheduler: an event's reaction emitted another event")
            counters.emitted += 1
            if Observer.isActive { observer.emitted(number, line: line, at: t, atEnd: false) }
            try sink.emit(line, at: t, number: number)
        }
        if let due = effects.schedule { soleDue = due }
        if Observer.isActive, let discarded = effects.discarded {
            if discarded == number {
                observer.dropped(number, windowEnd: soleDue)
            } else {
                observer.replaced(discarded, by: number)
            }
        }
        if policy.pending(in: sole.state) == number {
            sole.pendingNumber = number
            if borrowing {
                sole.borrowedLine = line
            } else {
                sole.borrowedLine = nil
                pendingLines.store(line, in: 0)
            }
        }
    }

    /// End of input in replay: the clock runs on until every timer has fired,
    /// so pending events come out at their due times, in order.
    public mutating func finish() throws(OutputError) {
        try runOn(stampedAt: nil)
    }

    /// End of input in live mode: every pending event is emitted now, in the
    /// order the clock running on would have emitted them, each stamped `now`.
    public mutating func finish(emittingAt now: Instant) throws(OutputError) {
        try runOn(stampedAt: now)
    }

    /// Fires every timer left, in order; emissions are stamped `stamp`, or
    /// their due time when nil.
    private mutating func runOn(stampedAt stamp: Instant?) throws(OutputError) {
        finishing = true
        defer { finishing = false }
        if !keyed {
            while soleDue != nil { try fireSole(stampedAt: stamp) }
        }
        while !timers.isEmpty { try fireBatch(stampedAt: stamp) }
    }

    // MARK: - Timers

    /// Fires all timers due at the earliest deadline, in input order of the
    /// events they hold. New timers they set are later (windows are > 0).
    mutating func fireBatch(stampedAt stamp: Instant?) throws(OutputError) {
        let due = timers.first!.due
        let first = timers.popFirst().slot
        // Most often (always, unkeyed) one timer is due at that instant.
        guard let next = timers.first, next.due == due else {
            try fire(first, due: due, stampedAt: stamp)
            return
        }
        batch.removeAll(keepingCapacity: true)
        batch.append(first)
        while let next = timers.first, next.due == due {
            batch.append(timers.popFirst().slot)
        }
        // Slots holding nothing emit nothing; their place does not matter.
        let policy = self.policy
        let slots = self.slots
        batch.sort { a, b in
            let pa = policy.pending(in: slots[Int(a)].state) ?? .max
            let pb = policy.pending(in: slots[Int(b)].state) ?? .max
            return pa < pb
        }
        for i in batch.indices {
            try fire(batch[i], due: due, stampedAt: stamp)
        }
    }

    /// Delivers a timer due at `due` to the policy of `slot`.
    @inline(__always)
    private mutating func fire(_ slot: Int32, due: Instant, stampedAt stamp: Instant?) throws(OutputError) {
        let s = Int(slot)
        let effects = policy.reduce(into: &slots[s].state, .timerFired(at: due))
        if let emitted = effects.emit {
            precondition(emitted == slots[s].pendingNumber, "Scheduler: a timer emitted an event it did not hold")
            let borrowed = slots[s].borrowedLine
            slots[s].borrowedLine = nil
            try emitPending(borrowed, slot: slot, number: emitted, at: stamp ?? due)
        }
        if let next = effects.schedule { timers.set(slot: slot, due: next) }
        if policy.isIdle(slots[s].state) { release(slot) }
    }

    /// The timer of `sole` fires (unkeyed).
    private mutating func fireSole(stampedAt stamp: Instant?) throws(OutputError) {
        let due = soleDue!
        soleDue = nil
        let effects = policy.reduce(into: &sole.state, .timerFired(at: due))
        if let emitted = effects.emit {
            precondition(emitted == sole.pendingNumber, "Scheduler: a timer emitted an event it did not hold")
            let borrowed = sole.borrowedLine
            sole.borrowedLine = nil
            try emitPending(borrowed, slot: 0, number: emitted, at: stamp ?? due)
        }
        if let next = effects.schedule { soleDue = next }
    }

    /// Writes a slot's pending line where it is kept: borrowed, or in the
    /// slot's buffer.
    @inline(__always)
    private mutating func emitPending(_ borrowed: UnsafeRawBufferPointer?, slot: Int32, number: EventNumber,
                                      at time: Instant) throws(OutputError) {
        counters.emitted += 1
        if let line = borrowed {
            if Observer.isActive { observer.emitted(number, line: line, at: time, atEnd: finishing) }
            try sink.emit(line, at: time, number: number)
        } else {
            try pendingLines.withBytes(of: slot) { (bytes) throws(OutputError) in
                if Observer.isActive { observer.emitted(number, line: bytes, at: time, atEnd: finishing) }
                try sink.emit(bytes, at: time, number: number)
            }
        }
    }

    // MARK: - Keys

    @inline(__always)
    private mutating func slotFor(key: UnsafeRawBufferPointer) -> Int32 {
        let hash = hashBytes(key)
        if let slot = keys.find(key, hash: hash) {
            if slots[Int(slot)].idle { revive(slot) }
            return slot
        }
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(slot)].state = policy.initialState
        } else {
            slot = Int32(slots.count)
            slots.append(Slot(state: policy.initialState))
        }
        keys.insert(key, hash: hash, slot: slot)
        counters.activeKeys += 1
        if counters.activeKeys > counters.peakActiveKeys { counters.peakActiveKeys = counters.activeKeys }
        if seenKeys != nil, seenKeys!.insert(hash).inserted { counters.distinctKeys += 1 }
        return slot
    }

    // MARK: - Idle keys
    //
    // A key whose state goes idle is forgotten: its state is dropped and it
    // no longer counts as active. Its bytes stay in the key table for a
    // while, though, on a list of at most `idleKeysKept` idle keys: with a
    // few busy keys, each goes idle at the end of every window and comes
    // back at its next event, and taking it out of the table and putting it
    // back each time (a backward-shift deletion, a key copy, an insertion)
    // was a sixth of a keyed throttle. A key that comes back finds its slot
    // and starts from `initialState`, as a new key would; when the list is
    // full, the oldest idle key leaves the table. Memory still follows the
    // keys active within one window (plus the bounded list).

    /// Idle keys kept in the table at most.
    private static var idleKeysKept: Int { 1024 }

    /// Forgets an idle key's state; its slot (and buffers) serve the key
    /// again, or the next new key once the key has left the idle list.
    private mutating func release(_ slot: Int32) {
        let s = Int(slot)
        pendingLines.clear(slot)
        slots[s].borrowedLine = nil
        counters.activeKeys -= 1
        slots[s].idle = true
        slots[s].idlePrevious = newestIdle
        slots[s].idleNext = -1
        if newestIdle >= 0 { slots[Int(newestIdle)].idleNext = slot } else { oldestIdle = slot }
        newestIdle = slot
        idleCount += 1
        if idleCount > Self.idleKeysKept {
            let oldest = oldestIdle
            unlinkIdle(oldest)
            keys.remove(slot: oldest)
            freeSlots.append(oldest)
        }
    }

    /// An idle key is back: a fresh state in its old slot.
    private mutating func revive(_ slot: Int32) {
        unlinkIdle(slot)
        slots[Int(slot)].state = policy.initialState
        counters.activeKeys += 1
        if counters.activeKeys > counters.peakActiveKeys { counters.peakActiveKeys = counters.activeKeys }
    }

    private mutating func unlinkIdle(_ slot: Int32) {
        let s = Int(slot)
        let previous = slots[s].idlePrevious
        let next = slots[s].idleNext
        if previous >= 0 { slots[Int(previous)].idleNext = next } else { oldestIdle = next }
        if next >= 0 { slots[Int(next)].idlePrevious = previous } else { newestIdle = previous }
        slots[s].idle = false
        idleCount -= 1
    }
}

extension Scheduler where Observer == NoObserver {
    /// A scheduler nothing watches.
    public init(policy: P, keyed: Bool, sink: Sink, countDistinctKeys: Bool = false) {
        self.init(policy: policy, keyed: keyed, sink: sink, observer: NoObserver(), countDistinctKeys: countDistinctKeys)
    }
}
