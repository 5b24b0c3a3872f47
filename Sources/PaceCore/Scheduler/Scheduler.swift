// The one runtime. It feeds events and timer firings to a policy, one state
// per key, and carries out the effects the policy returns: writes emitted
// lines to the sink, keeps each key's one timer, keeps the bytes of the
// events a policy holds, forgets keys that went idle. The driver (Driver.swift)
// runs it for replay and live mode, the tests through their test clock:
//
//   advance(to: t)      fire every timer due at or before t, in order (but
//                       timers that only forget: see LapsedKeys.swift)
//   send(line, key, t)  advance(to: t), then hand the event to its key's policy
//   finish()            end of input: run the clock on until no timer is left
//
// It never reads a clock. Whoever drives it says what time it is.
//
// Scheduler: this room holds the scheduler, the key store it keeps each key's
// state and timer in (KeyStore.swift), and the bytes of the lines policies
// hold (HeldLines.swift).
//
// It is generic over its policy, its key store (`OneKey` or `ManyKeys`), its
// sink (with or without the counting layer) and its observer, and
// specialised for each combination: no branch on "keyed?", "counted?" or
// "watched?" at run time. The `--dropped` file is chosen at run time
// instead: an optional tested only where a line is discarded, which costs a
// predictable branch, not another copy of this code.
//
// Ordering. SPEC orders output by emission time, then by input order of the
// emitted events. Immediate emissions happen in input order by construction.
// Timers due at one instant are fired as a batch sorted by the event each one
// holds, so two keys whose deadlines coincide come out in input order.
//
// Events are numbered by whoever drives the scheduler: the driver passes each
// line's input line number, so `--trace` names lines without a mapping table.
// Numbers only need to increase.

package struct Scheduler<P: Policy, Keys: KeyStore<P.State> & ~Copyable, Sink: LineSink & ~Copyable,
                         Observer: SchedulerObserver>:
    ~Copyable where P.Payload == EventNumber {
    package let policy: P
    /// The sink, reachable so a test can read what it received.
    package var sink: Sink
    /// What watches the run (`--trace`, `--marbles`, `--stats`); `NoObserver`
    /// when nothing does (read by the driver's side, SchedulerRequests.swift).
    let observer: Observer
    /// `--dropped`'s file: every line discarded goes there. Held here, and
    /// written on the per-line path through `droppedRef`, with no reference
    /// taken: a strong optional read there was retained and released at
    /// every discard (25 instructions a line).
    let dropped: FileWriter?
    let droppedRef: Unmanaged<FileWriter>?
    // Not private: `--resolve-after`'s part (SchedulerEpisodes.swift) and
    // `--state`'s (SchedulerState.swift) and `--batch`'s (Batches.swift) use them.
    var keys: Keys
    var held = HeldLines(batches: P.batches)
    var counters = SchedulerStats()
    /// `--resolve-after`: each key's episode (empty unless `marks`).
    var episodes: EpisodeBook
    /// `--state` with an observer: the slots of keys loaded at start that
    /// no event of this run has reached yet (SchedulerOutput.swift).
    var unseenLoadedKeys: Set<Int32> = []
    /// `--resolve-after` was given: see `marks`.
    private let marking: Bool
    /// Inside `finish`: emissions are of events still pending at end of input.
    var finishing = false
    /// The slot whose first held line is being written (it stays held
    /// until the write is done), or -1.
    var writingHeld: Int32 = -1
    private var batch: [Int32] = []

    /// - Parameters:
    ///   - keys: `OneKey<P.State>.self` or `ManyKeys<P.State>.self`.
    ///   - observer: what watches the run (`NoObserver` for nothing).
    ///   - dropped: `--dropped`'s file, if any.
    ///   - resolveAfter: `--resolve-after`'s Q, given only with a sink that can
    ///     mark (`Counted`, `Sink.marksEpisodes`).
    package init(policy: P, keys: Keys.Type, sink: consuming Sink, observer: Observer, dropped: FileWriter? = nil,
                 resolveAfter: Nanoseconds? = nil) {
        precondition(resolveAfter == nil || Sink.marksEpisodes, "Scheduler: --resolve-after needs a counting sink")
        marking = resolveAfter != nil
        episodes = EpisodeBook(quiet: resolveAfter ?? 0)
        self.policy = policy
        self.sink = sink
        self.observer = observer
        self.dropped = dropped
        droppedRef = dropped.map { Unmanaged.passUnretained($0) }
        self.keys = Keys(initialState: policy.initialState)
        if !Keys.isKeyed { counters.activeKeys = 1 }
    }

    /// Whether the run marks episodes (`--resolve-after`): false at compile
    /// time unless the sink can mark (the counting layer), so that every
    /// other run compiles none of the episodes' code.
    @inline(__always)
    var marks: Bool { Sink.marksEpisodes && marking }

    /// The run is over: its sink, with everything written to it, handed back
    /// to its owner; the rest of the scheduler is freed.
    package consuming func takeSink() -> Sink { sink }

    /// The counters for `--stats`. Unkeyed, the one shared state counts as
    /// one key once an event has come.
    package var stats: SchedulerStats {
        guard !Keys.isKeyed else {
            var keyed = counters
            keyed.uncountedDiscards = sink.uncountedDiscards
            if Observer.isActive, let estimate = observer.distinctKeysEstimate {
                keyed.distinctKeys = estimate
                keyed.distinctKeysEstimated = true
            }
            if marks { episodes.report(into: &keyed) }
            return keyed
        }
        var unkeyed = counters
        unkeyed.distinctKeys = counters.eventsIn > 0 ? 1 : 0
        unkeyed.peakActiveKeys = counters.eventsIn > 0 ? 1 : 0
        if marks { episodes.report(into: &unkeyed) }
        return unkeyed
    }

    /// When the next timer is due, if any (live mode sleeps until then).
    /// Timers that only forget need no waking for.
    package var nextDeadline: Instant? {
        if marks { return firstEpisodicDue(lapsed: false) }
        return P.timersOnlyForget ? nil : keys.timers.firstDue
    }

    /// True while a timer is set, one that only forgets included.
    package var hasTimers: Bool { keys.timers.firstDue != nil || (marks && episodes.timers.firstDue != nil) }

    /// Number of keys with state held (for memory checks and tests), lapsed
    /// ones not yet forgotten included (see LapsedKeys.swift).
    package var heldKeys: Int { keys.heldKeys }

    /// Events held back in all, waiting for a timer: what a run ended at
    /// once by a second signal does not write. A held line whose write is
    /// under way counts with the sink's unwritten lines instead.
    package var heldEvents: Int { held.count - (writingHeld >= 0 ? 1 : 0) }

    // MARK: - Driving

    /// Fires every timer due at or before `now`, earliest first; timers that
    /// only forget are left until their keys are wanted (see LapsedKeys.swift).
    @inline(__always)
    package mutating func advance(to now: Instant) throws(OutputError) {
        if marks {
            if let due = firstEpisodicDue(lapsed: false), due <= now { try advanceEpisodes(to: now) }
            return
        }
        guard !P.timersOnlyForget else { return }
        while let due = keys.timers.firstDue, due <= now { try fireBatch(stampedAt: nil) }
    }

    /// Hands one event, numbered `number`, to its key's policy, after firing
    /// what is due. `line` and `key` need only live for the call, unless
    /// `borrowing`: then the caller promises that `line` stays valid and
    /// unchanged until it calls `keepBorrowedLines()`, and a line the policy
    /// holds is not copied (see HeldLines).
    @inline(__always)
    package mutating func send(_ line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, at t: Instant,
                              number: EventNumber, borrowing: Bool = false) throws(OutputError) {
        try advance(to: t)
        if P.timersOnlyForget && Keys.isKeyed && Sink.counts && sink.countsPassTheirBound {
            try fireLapsedTimers(upTo: t)
        }
        counters.eventsIn += 1
        if Observer.isActive { observer.entered(number, key: key, at: t) }
        let peakBefore = counters.peakActiveKeys
        let found = keys.slot(for: key, counters: &counters)
        let slot = found.slot
        if Keys.isKeyed && found.joined {
            keyJoined(found, key)
        } else if Keys.isKeyed && Observer.isActive && !unseenLoadedKeys.isEmpty {
            loadedKeySeen(found, key)
        }
        if Keys.isKeyed && Sink.counts && found.returned { sink.keyReturned(slot: slot) }
        if P.timersOnlyForget && Keys.isKeyed && counters.peakActiveKeys != peakBefore {
            try forgetLapsedKeys(at: t, peakBefore: peakBefore)
        }
        let effects = policy.reduce(into: &keys[state: slot], .event(number, at: t))
        if P.batches, let batch = effects.batch {
            try releaseFullBatch(batch, effects, line, key: key, at: t, number: number, slot: slot, borrowing: borrowing)
            return
        }
        if let emitted = effects.emit {
            precondition(emitted == number, "Scheduler: an event's reaction emitted another event")
            counters.emitted += 1
            try write(Emission(line: line, time: t, number: number, key: key, slot: slot, batchSize: P.batches ? 1 : 0),
                      atEnd: false)
        }
        if let due = effects.schedule { keys.timers.set(slot: slot, due: due) }
        if let discarded = effects.discarded, discarded != number {
            // The event replaced the one its key held (debounce, throttle-last:
            // policies that hold at most one).
            assert(held.first(slot) == discarded, "Scheduler: a policy discarded an event it did not hold")
            assert(effects.hold, "Scheduler: a held event was discarded for nothing")
            if Sink.thinsDiscards && sink.letsThrough(discardOf: slot) {
                try letThrough(held.firstLine(slot), number: discarded, at: t, key: key, slot: slot)
            } else {
                if Observer.isActive { observer.replaced(discarded, by: number) }
                if Sink.counts || droppedRef != nil { try account(discarding: held.firstLine(slot), at: t, slot: slot) }
            }
            held.replaceOnly(slot, with: line, number: number, borrowing: borrowing)
        } else {
            if effects.discarded != nil, Sink.thinsDiscards && sink.letsThrough(discardOf: slot) {
                try letThrough(line, number: number, at: t, key: key, slot: slot)
            } else if effects.discarded != nil {
                if Observer.isActive {
                    let reopening = policy.reopening(in: keys[state: slot]) ?? keys.timers.due(of: slot)
                    observer.dropped(number, windowEnd: reopening)
                }
                if Sink.counts || droppedRef != nil { try account(discarding: line, at: t, slot: slot) }
            }
            if effects.hold {
                held.append(line, number: number, to: slot, borrowing: borrowing)
                if Int64(held.count) > counters.peakBacklog { counters.peakBacklog = Int64(held.count) }
            }
        }
        if marks {
            episodes.handled(line, number: number, at: t, slot: slot, pending: held.first(slot) != nil,
                             borrowing: borrowing)
        }
        if effects.idle { release(slot) }
    }

    /// Copies every borrowed line still held: the reader is about to reuse
    /// its buffer.
    @inline(__always)
    package mutating func keepBorrowedLines() {
        held.keepBorrowed()
        if marks { episodes.keepBorrowed() }
    }

    /// End of input in replay: the clock runs on until every timer has fired,
    /// so pending events come out at their due times, in order.
    package mutating func finish() throws(OutputError) {
        try runOn(stampedAt: nil)
    }

    /// End of input in live mode: every pending event is emitted now, in the
    /// order the clock running on would have emitted them, each stamped `now`.
    /// With `--resolve-after`, open episodes then close at once, unless
    /// `closingEpisodes` is false (`--state` saves them open).
    package mutating func finish(emittingAt now: Instant, closingEpisodes: Bool = true) throws(OutputError) {
        if marks { return try finishEpisodes(emittingAt: now, closing: closingEpisodes) }
        try runOn(stampedAt: now)
    }

    /// Fires every timer left, in order; emissions are stamped `stamp`, or
    /// their due time when nil.
    private mutating func runOn(stampedAt stamp: Instant?) throws(OutputError) {
        finishing = true
        defer { finishing = false }
        if marks {
            while let due = firstEpisodicDue(lapsed: true) {
                try fireEpisodic(at: due, stampedAt: stamp, policyTimers: true, resolutions: true)
            }
            return try closeEpisodesPastTheEnd(at: stamp ?? .max)
        }
        while keys.timers.firstDue != nil { try fireBatch(stampedAt: stamp) }
    }

    // MARK: - Timers

    /// Fires all timers due at the earliest deadline, in input order of the
    /// events they hold. New timers they set are later (windows are > 0).
    // Out of line: it runs once per timer, not per line, and inlined it made
    // `advance` (called for every line) too large to inline into `send`.
    @inline(never)
    private mutating func fireBatch(stampedAt stamp: Instant?) throws(OutputError) {
        let due = keys.timers.firstDue!
        let first = keys.timers.popFirst()
        // Most often (always, unkeyed) one timer is due at that instant.
        guard Keys.isKeyed, let next = keys.timers.firstDue, next == due else {
            try fire(first, due: due, stampedAt: stamp)
            return
        }
        var batch = self.batch
        self.batch = []
        defer { self.batch = batch }
        batch.removeAll(keepingCapacity: true)
        batch.append(first)
        while let next = keys.timers.firstDue, next == due { batch.append(keys.timers.popFirst()) }
        // Slots holding nothing emit nothing; their place does not matter.
        batch.sort { (held.first($0) ?? .max) < (held.first($1) ?? .max) }
        for slot in batch { try fire(slot, due: due, stampedAt: stamp) }
    }

    /// Delivers a timer due at `due` to the policy of `slot`.
    @inline(__always)
    mutating func fire(_ slot: Int32, due: Instant, stampedAt stamp: Instant?) throws(OutputError) {
        let effects = policy.reduce(into: &keys[state: slot], .timerFired(at: due))
        if P.batches, let batch = effects.batch {
            try writeBatch(batch, of: slot, at: stamp ?? due)
            if marks { episodes.emittedPending(slot, at: due, more: false) }
        } else if let emitted = effects.emit {
            precondition(held.first(slot) == emitted, "Scheduler: a timer emitted an event it did not hold")
            counters.emitted += 1
            writingHeld = slot
            let key = Sink.readsKeys || Observer.isActive ? keys.key(of: slot) : .empty
            try write(Emission(line: held.firstLine(slot), time: stamp ?? due, number: emitted, key: key, slot: slot),
                      atEnd: finishing)
            writingHeld = -1
            held.dropFirst(slot)
            if marks { episodes.emittedPending(slot, at: due, more: held.first(slot) != nil) }
        }
        if let next = effects.schedule { keys.timers.set(slot: slot, due: next) }
        if effects.idle { release(slot) }
    }
}
