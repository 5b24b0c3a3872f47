// The one runtime. It feeds events and timer firings to a policy, one state
// per key, and carries out the effects the policy returns: writes emitted
// lines to the sink, keeps each key's one timer, keeps the bytes of the
// events a policy holds, forgets keys that went idle. The driver (Driver.swift)
// runs it for replay and live mode, the tests through their test clock:
//
//   advance(to: t)      fire every timer due at or before t, in order (but
//                       timers that only forget: see "Lapsed keys")
//   send(line, key, t)  advance(to: t), then hand the event to its key's policy
//   finish()            end of input: run the clock on until no timer is left
//
// It never reads a clock. Whoever drives it says what time it is.
//
// It is generic over its policy, its key space (`OneKey` or `ManyKeys`), its
// sink and its observer, and specialised for each combination: there is one
// copy of this code, and no branch on "keyed?" or "watched?" at run time.
//
// Ordering. SPEC orders output by emission time, then by input order of the
// emitted events. Immediate emissions happen in input order by construction.
// Timers due at one instant are fired as a batch sorted by the event each one
// holds, so two keys whose deadlines coincide come out in input order.
//
// Events are numbered by whoever drives the scheduler: the driver passes each
// line's input line number, so `--trace` names lines without a mapping table.
// Numbers only need to increase.

public struct Scheduler<P: Policy, Keys: KeySpace<P.State> & ~Copyable, Sink: LineSink & ~Copyable,
                        Observer: SchedulerObserver>:
    ~Copyable where P.Payload == EventNumber {
    public let policy: P
    /// The sink, reachable so the driver can flush it.
    public var sink: Sink
    /// What watches the run (`NoObserver` unless asked for).
    public var observer: Observer
    private var keys: Keys
    private var held = HeldLines()
    private var counters = SchedulerStats()
    /// Inside `finish`: emissions are of events still pending at end of input.
    private var finishing = false
    /// A held line is being written (it stays held until the write is done).
    private var writingHeld = false
    private var batch: [Int32] = []

    /// - Parameters:
    ///   - keys: `OneKey<P.State>.self` or `ManyKeys<P.State>.self`.
    ///   - countDistinctKeys: keep what the distinct-key count needs.
    ///   - observer: what watches the run (see `SchedulerObserver`).
    public init(policy: P, keys: Keys.Type, sink: consuming Sink, observer: Observer, countDistinctKeys: Bool = false) {
        self.init(policy: policy,
                  keys: Keys(initialState: policy.initialState, countDistinctKeys: countDistinctKeys,
                             countDiscards: Sink.writesCounts),
                  sink: sink, observer: observer)
    }

    /// With a key space built by the caller (tests give ManyKeys a small
    /// ForgottenCounts).
    init(policy: P, keys: consuming Keys, sink: consuming Sink, observer: Observer) {
        self.policy = policy
        self.sink = sink
        self.observer = observer
        self.keys = keys
        if !Keys.isKeyed { counters.activeKeys = 1 }
    }

    /// The run is over: its sink, with everything written to it, handed back
    /// to its owner; the rest of the scheduler is freed.
    public consuming func takeSink() -> Sink { sink }

    /// The counters for `--stats`. Unkeyed, the one shared state counts as
    /// one key once an event has come.
    public var stats: SchedulerStats {
        guard !Keys.isKeyed else {
            var keyed = counters
            keyed.uncountedDiscards = keys.uncountedDiscards
            if let estimate = keys.distinctKeysEstimate {
                keyed.distinctKeys = estimate
                keyed.distinctKeysEstimated = true
            }
            return keyed
        }
        var unkeyed = counters
        unkeyed.distinctKeys = counters.eventsIn > 0 ? 1 : 0
        unkeyed.peakActiveKeys = counters.eventsIn > 0 ? 1 : 0
        return unkeyed
    }

    /// When the next timer is due, if any (live mode sleeps until then).
    /// Timers that only forget need no waking for.
    public var nextDeadline: Instant? { P.timersOnlyForget ? nil : keys.nextDue }

    /// True while a timer is set, one that only forgets included.
    public var hasTimers: Bool { keys.nextDue != nil }

    /// Number of keys with state held (for memory checks and tests), lapsed
    /// ones not yet forgotten included (see "Lapsed keys").
    public var heldKeys: Int { keys.heldKeys }

    /// Events held back in all, waiting for a timer: what a run ended at
    /// once by a second signal does not write. A held line whose write is
    /// under way counts with the sink's unwritten lines instead.
    public var heldEvents: Int { held.count - (writingHeld ? 1 : 0) }

    // MARK: - Driving

    /// Fires every timer due at or before `now`, earliest first; timers that
    /// only forget are left until their keys are wanted (see "Lapsed keys").
    @inline(__always)
    public mutating func advance(to now: Instant) throws(OutputError) {
        guard !P.timersOnlyForget else { return }
        while let due = keys.nextDue, due <= now { try fireBatch(stampedAt: nil) }
    }

    /// Hands one event, numbered `number`, to its key's policy, after firing
    /// what is due. `line` and `key` need only live for the call, unless
    /// `borrowing`: then the caller promises that `line` stays valid and
    /// unchanged until it calls `keepBorrowedLines()`, and a line the policy
    /// holds is not copied (see HeldLines).
    @inline(__always)
    public mutating func send(_ line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, at t: Instant,
                              number: EventNumber, borrowing: Bool = false) throws(OutputError) {
        try advance(to: t)
        if P.timersOnlyForget && Keys.isKeyed && Sink.writesCounts && keys.countsPassTheirBound {
            try fireLapsedTimers(upTo: t)
        }
        counters.eventsIn += 1
        if Observer.isActive { observer.entered(number, line: line, key: key, at: t) }
        let peakBefore = counters.peakActiveKeys
        let slot = keys.slot(for: key, counters: &counters)
        if P.timersOnlyForget && Keys.isKeyed && counters.peakActiveKeys != peakBefore {
            try forgetLapsedKeys(at: t, peakBefore: peakBefore)
        }
        let effects = keys.reduce(policy, slot, .event(number, at: t))
        if let emitted = effects.emit {
            precondition(emitted == number, "Scheduler: an event's reaction emitted another event")
            counters.emitted += 1
            if Observer.isActive { observer.emitted(number, line: line, at: t, atEnd: false) }
            try write(line, at: t, slot: slot, number: number)
        }
        if let due = effects.schedule { keys.setTimer(slot, due: due) }
        if let discarded = effects.discarded, discarded != number {
            // The event replaced the one its key held (debounce, throttle-last:
            // policies that hold at most one).
            assert(held.first(slot) == discarded, "Scheduler: a policy discarded an event it did not hold")
            assert(effects.hold, "Scheduler: a held event was discarded for nothing")
            if Observer.isActive { observer.replaced(discarded, by: number) }
            if Sink.writesCounts || Sink.keepsDiscards { try account(discarding: held.firstLine(slot), at: t, slot: slot) }
            held.replaceOnly(slot, with: line, number: number, borrowing: borrowing)
        } else {
            if effects.discarded != nil {
                if Observer.isActive { observer.dropped(number, windowEnd: keys.reopening(policy, slot) ?? keys.due(of: slot)) }
                if Sink.writesCounts || Sink.keepsDiscards { try account(discarding: line, at: t, slot: slot) }
            }
            if effects.hold {
                held.append(line, number: number, to: slot, borrowing: borrowing)
                if Int64(held.count) > counters.peakBacklog { counters.peakBacklog = Int64(held.count) }
            }
        }
        if effects.idle { release(slot) }
    }

    /// Copies every borrowed line still held: the reader is about to reuse
    /// its buffer.
    @inline(__always)
    public mutating func keepBorrowedLines() { held.keepBorrowed() }

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
        while keys.nextDue != nil { try fireBatch(stampedAt: stamp) }
    }

    // MARK: - Timers

    /// Fires all timers due at the earliest deadline, in input order of the
    /// events they hold. New timers they set are later (windows are > 0).
    // Out of line: it runs once per timer, not per line, and inlined it made
    // `advance` (called for every line) too large to inline into `send`.
    @inline(never)
    private mutating func fireBatch(stampedAt stamp: Instant?) throws(OutputError) {
        let due = keys.nextDue!
        let first = keys.popEarliest()
        // Most often (always, unkeyed) one timer is due at that instant.
        guard Keys.isKeyed, let next = keys.nextDue, next == due else {
            try fire(first, due: due, stampedAt: stamp)
            return
        }
        var batch = self.batch
        self.batch = []
        defer { self.batch = batch }
        batch.removeAll(keepingCapacity: true)
        batch.append(first)
        while let next = keys.nextDue, next == due { batch.append(keys.popEarliest()) }
        // Slots holding nothing emit nothing; their place does not matter.
        batch.sort { (held.first($0) ?? .max) < (held.first($1) ?? .max) }
        for slot in batch { try fire(slot, due: due, stampedAt: stamp) }
    }

    /// Delivers a timer due at `due` to the policy of `slot`.
    @inline(__always)
    private mutating func fire(_ slot: Int32, due: Instant, stampedAt stamp: Instant?) throws(OutputError) {
        let effects = keys.reduce(policy, slot, .timerFired(at: due))
        if let emitted = effects.emit {
            precondition(held.first(slot) == emitted, "Scheduler: a timer emitted an event it did not hold")
            counters.emitted += 1
            let line = held.firstLine(slot)
            let time = stamp ?? due
            if Observer.isActive { observer.emitted(emitted, line: line, at: time, atEnd: finishing) }
            writingHeld = true
            try write(line, at: time, slot: slot, number: emitted)
            writingHeld = false
            held.dropFirst(slot)
        }
        if let next = effects.schedule { keys.setTimer(slot, due: next) }
        if effects.idle { release(slot) }
    }

    // MARK: - Lapsed keys
    //
    // A policy whose timer only forgets (`timersOnlyForget`: a throttle's
    // window, a count limit's refill) needs no timer to decide anything, so
    // its timers are not fired as time passes: a key whose timer is past has
    // lapsed, and its next event finds a state that behaves as a fresh one.
    // What the timers still decide is memory and the peak of active keys, so
    // they fire when either asks: when a key becomes active and the count of
    // active keys, lapsed ones included, passes its peak. Firing the lapsed
    // ones then (earliest first, at their due times) makes the count exact,
    // and the peak with it. It can pass the peak at no other moment: a
    // lapsed key that comes back was counted all along. So memory follows
    // the peak of active keys, as with timers fired on time, and a steady
    // set of keys (a few hosts) runs without firing a timer at all.
    //
    // `--count` adds one bound: at most ForgottenCounts' capacity of idle
    // keys have their counts remembered (SPEC). A lapsed key keeps its count
    // in its slot, so while the keys in the table and those remembered after
    // them are within that capacity, no count can have been given up, with
    // timers fired late or on time. Past it, lapsed timers fire before every
    // event, as on time, and the idle keys' counts are bounded as they were.

    /// A key became active at `t` and the count passed `peakBefore`:
    /// forgets the keys lapsed by then, and sets the peak from what is left.
    @inline(never)
    private mutating func forgetLapsedKeys(at t: Instant, peakBefore: Int64) throws(OutputError) {
        counters.peakActiveKeys = peakBefore
        try fireLapsedTimers(upTo: t)
        if counters.activeKeys > peakBefore { counters.peakActiveKeys = counters.activeKeys }
    }

    /// Fires the timers due at or before `t`, earliest first (they emit
    /// nothing: no batch to order).
    @inline(never)
    private mutating func fireLapsedTimers(upTo t: Instant) throws(OutputError) {
        while let due = keys.nextDue, due <= t { try fire(keys.popEarliest(), due: due, stampedAt: nil) }
    }

    // MARK: - Accounting (`--count`, `--dropped`: see LineSink)

    /// Writes an emitted line of `slot`, with its count when the sink shows
    /// counts (which hands out the key's owed discards).
    @inline(__always)
    private mutating func write(_ line: UnsafeRawBufferPointer, at time: Instant, slot: Int32,
                                number: EventNumber) throws(OutputError) {
        if Sink.writesCounts {
            try sink.emit(line, at: time, number: number, count: keys.takeOwed(slot) + 1)
        } else {
            try sink.emit(line, at: time, number: number)
        }
    }

    /// An event of `slot` is discarded at `time`: its key owes one more
    /// (`--count`), and its bytes go to the sink (`--dropped`). Called only
    /// when the sink does either.
    @inline(__always)
    private mutating func account(discarding line: UnsafeRawBufferPointer, at time: Instant,
                                  slot: Int32) throws(OutputError) {
        if Sink.writesCounts { keys.owe(slot) }
        if Sink.keepsDiscards { try sink.discard(line, at: time) }
    }

    /// The key of `slot` went idle: its state is forgotten.
    @inline(__always)
    private mutating func release(_ slot: Int32) {
        precondition(held.first(slot) == nil, "Scheduler: a key went idle holding an event")
        held.release(slot)
        keys.release(slot, counters: &counters)
    }
}

extension Scheduler where Keys == ManyKeys<P.State> {
    /// What stays allocated, for memory tests: slots, keys in the key table,
    /// bytes of the buffers held lines are kept in.
    var footprint: (slots: Int, tableKeys: Int, lineBytes: Int) {
        (keys.slotCount, keys.tableCount, held.bufferBytes)
    }
}
