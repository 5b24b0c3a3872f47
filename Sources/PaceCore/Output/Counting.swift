// `--count`: the counting layer. It wraps the sink that writes (stdout's, or
// `--exec`'s, which passes the count on as PACE_COUNT) and owns every count
// the run keeps: each key's discards since its last output line, by slot,
// and the counts of keys the scheduler forgot while they owed one
// (ForgottenCounts). The scheduler only tells it what happened: a discard, a
// key joining or leaving the key table. Without `--count` the sink is not
// wrapped, its `counts` is false, and none of this is on the per-line path.
//
// Two rarer flags run through this layer at run time rather than as layers of
// their own (each layer was one more specialisation of every policy, key
// store, observer and mode: 717 copies of the driver, 13.7 MB of text):
// - `--then-every M`: of a key's discards, every Mth in a row goes out
//   instead (SPEC, Semantics). The run of discards since a key's last
//   output line is exactly the owed count kept here (the policy's discards
//   only: `--on-busy`'s are the command runner's, given back to a key that
//   left the table and returns, within the same bound), so the scheduler
//   asks `letsThrough` at each discard; without the flag M is Int64.max and
//   the answer is always no.
// - `--resolve-after`: the scheduler sends every output line through
//   `emitMarked`, which counts a resolved line, a copy, as its key's discards
//   alone, and which stdout's sink writes with its mark column
//   (Marking.swift). The scheduler keeps episodes only when the run marks
//   (`Scheduler.marks`).
// Without `--count` either flag still runs through this layer, and stdout's
// sink shows no count (`CountStyle.hidden`).

/// `--count`: every line written with its count; a line that never met the
/// policy (`--on-bad-time pass`) counts 1.
package struct Counted<Base: LineSink & ~Copyable>: LineSink, ~Copyable {
    package var base: Base
    /// Each slot's discards since its key's last output line.
    private var owed = SlotArray<Int64>(empty: 0)
    private let forgotten: ForgottenCounts
    /// See `countsPassTheirBound`.
    private var pastBound = false
    /// Idle keys still in the table that owe a count, oldest first: they
    /// are remembered too, within the same bound as the forgotten ones
    /// (SPEC's bound is the total).
    private var idleOwing = SlotLRU()
    /// `--then-every`'s M, or Int64.max: no run of discards reaches it.
    private let every: Int64

    /// `forgottenCapacity`: how many forgotten keys' counts are remembered
    /// (SPEC: 1,000,000; tests make it small). `thenEvery`: `--then-every`'s
    /// M (at least 2).
    package init(_ base: consuming Base, forgottenCapacity: Int = ForgottenCounts.defaultCapacity,
                 thenEvery: Int64? = nil) {
        precondition(thenEvery.map { $0 >= 2 } ?? true, "Counted: --then-every's M is at least 2")
        self.base = base
        forgotten = ForgottenCounts(capacity: forgottenCapacity)
        every = thenEvery ?? .max
    }

    /// The layer a run of `configuration` counts with.
    package init(_ base: consuming Base, for configuration: Configuration) {
        self.init(base, thenEvery: configuration.thenEvery)
    }

    /// The wrapped sink, handed back at the end of the run.
    package consuming func take() -> Base { base }

    package static var counts: Bool { true }
    package static var readsKeys: Bool { Base.readsKeys }
    /// Whether this run marks is the scheduler's to know (`--resolve-after`:
    /// its `marks`, false at compile time for every other sink); it then
    /// sends each line through `emitMarked`.
    package static var marksEpisodes: Bool { true }
    package static var thinsDiscards: Bool { true }

    /// Whether the discard the key of `slot` is about to have would make its
    /// run of discards reach `--then-every`'s M.
    @inline(__always)
    package func letsThrough(discardOf slot: Int32) -> Bool { owed[Int(slot)] &+ 1 >= every }

    @inline(__always)
    package mutating func emit(_ emission: Emission) throws(OutputError) {
        var counted = emission
        if emission.slot >= 0 {
            counted.count = owed[Int(emission.slot)] &+ 1
            owed[Int(emission.slot)] = 0
        } else {
            counted.count = 1
        }
        try base.emit(counted)
    }

    /// `--resolve-after`: a resolved line is a copy, so its count is its
    /// key's discards alone (SPEC Episodes), which may be 0.
    @inline(never)
    package mutating func emitMarked(_ emission: Emission) throws(OutputError) {
        var counted = emission
        if emission.slot >= 0 {
            counted.count = owed[Int(emission.slot)] &+ (emission.mark == .resolved ? 0 : 1)
            owed[Int(emission.slot)] = 0
        } else {
            counted.count = 1
        }
        try base.emitMarked(counted)
    }

    @inline(__always)
    package mutating func discarded(slot: Int32) { owed[Int(slot)] &+= 1 }


    /// A key new to the table owes what it owed when it was forgotten.
    @inline(never)
    package mutating func keyJoined(slot: Int32, key: UnsafeRawBufferPointer, hash: UInt64, keysInTable: Int) {
        owed.reserve(Int(slot))
        owed[Int(slot)] = forgotten.take(key, hash: hash)
        // The keys in the table and the forgotten ones with counts grow
        // only here, so the bound is worked out here: between two new keys
        // the sum can only have fallen, and a `true` that is no longer so
        // only fires lapsed timers on time.
        pastBound = keysInTable + forgotten.count > forgotten.capacity
    }

    /// The key leaves the table: what it owes is remembered. It moves from
    /// the idle keys that owe to the forgotten ones: the total stays.
    @inline(never)
    package mutating func keyLeft(slot: Int32, key: UnsafeRawBufferPointer, hash: UInt64) {
        let count = owed[Int(slot)]
        guard count > 0 else { return }
        idleOwing.remove(slot)
        forgotten.remember(key, hash: hash, owed: count)
        owed[Int(slot)] = 0
    }

    /// The key went idle; if it owes a count, its slot keeps it: one more
    /// idle key remembered with a count. Past the bound the least recently
    /// seen give theirs up: those ForgottenCounts keeps (they left the idle
    /// list before any key now on it), then, with a bound below the idle
    /// keys the table keeps (tests), the oldest idle one that owes.
    @inline(__always)
    package mutating func keyIdled(slot: Int32) {
        if owed[Int(slot)] > 0 { keepWhileIdle(slot) }
    }

    @inline(never)
    private mutating func keepWhileIdle(_ slot: Int32) {
        idleOwing.push(slot)
        guard !forgotten.makeRoom(besides: idleOwing.count) else { return }
        let oldest = idleOwing.popOldest()
        forgotten.giveUp(owed[Int(oldest)])
        owed[Int(oldest)] = 0
    }

    /// An idle key is back: its count is its own again, not a remembered one.
    @inline(__always)
    package mutating func keyReturned(slot: Int32) {
        if idleOwing.contains(slot) { idleOwing.remove(slot) }
    }

    /// Whether the keys in the table and the forgotten keys with counts are
    /// more than ForgottenCounts keeps, so that a count may have to be given
    /// up, and lapsed keys are forgotten on time (LapsedKeys.swift).
    package var countsPassTheirBound: Bool { pastBound }

    package var uncountedDiscards: Int64 { forgotten.uncounted }

    @inline(__always)
    package func owed(slot: Int32) -> Int64 { owed[Int(slot)] }

    package mutating func setOwed(slot: Int32, _ count: Int64) {
        owed.reserve(Int(slot))
        owed[Int(slot)] = count
    }

    package func forEachForgotten(_ body: (UnsafeRawBufferPointer, Int64) -> Void) { forgotten.forEach(body) }

    package func forEachOwedByCommands(includingWaiting: Bool, _ body: (UnsafeRawBufferPointer, Int64) -> Void) {
        base.forEachOwedByCommands(includingWaiting: includingWaiting, body)
    }

    package mutating func rememberForgotten(_ key: UnsafeRawBufferPointer, hash: UInt64, owed count: Int64) {
        forgotten.remember(key, hash: hash, owed: count)
    }

    package mutating func flush() throws(OutputError) { try base.flush() }

    package mutating func eraseBeforeWriting(_ erase: @escaping () -> Void) { base.eraseBeforeWriting(erase) }
}
