// `--then-every M`: the scheduler's part. When a key's policy discards an
// event (drops it on arrival, or replaces its pending one) and the key's
// run of discards would thereby reach M (the counting layer says: Counting.swift),
// the discarded event is emitted at once instead, at the time of the event
// being handled; the policy's state has already changed as for a discard
// (its reducer never knows). A replaced pending event is the one emitted,
// and the new one is held as ever. Emitted while the event is handled, it
// goes out after every line already emitted at that time. Its count is M:
// the counting layer adds the key's M - 1 discards.

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable {
    /// Emits the discarded event `number` (bytes `line`) of `slot` at `t`.
    @inline(never)
    mutating func letThrough(_ line: UnsafeRawBufferPointer, number: EventNumber, at t: Instant,
                             key: UnsafeRawBufferPointer, slot: Int32) throws(OutputError) {
        counters.emitted += 1
        counters.thenEveryPasses += 1
        var emission = Emission(line: line, time: t, number: number, key: key, slot: slot)
        // An output line of its key: `--resolve-after` marks it as any other.
        if marks { emission.mark = episodes.mark(emission) }
        if Observer.isActive { observer.letThrough(emission) }
        if marks { try sink.emitMarked(emission) } else { try sink.emit(emission) }
    }
}
