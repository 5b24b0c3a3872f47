// `--batch`'s part of the scheduler: a batch going out. A batching policy
// (BatchDebounce, BatchThrottleLast) says in its effects that an emission is
// a batch of every event its key holds; this writes them, oldest first, at
// one emission time, each with its place in the batch and the batch's size
// (`Emission.batchIndex`, `batchSize`), so that `--exec` runs one command
// for the batch. The scheduler's hooks are one line each in `send` (a batch
// that an event filled) and `fire` (a timer's batch); without `--batch`
// (`Policy.batches` false) they compile away.
//
// Output order (SPEC): a batch's lines stay together, since nothing else is
// written while one goes out; batches due at one instant go out in input
// order of their first lines, as `fireBatch` sorts the timers due by the
// first event each key holds; a batch an event filled goes out when that
// event is handled, after every line already emitted at its time.

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable {
    /// The event `number` made N events pending: it is held behind the
    /// others, and the batch goes out now, at its time; the policy then goes
    /// on as if its timer had fired (a new window, or idle with no timer).
    @inline(never)
    mutating func releaseFullBatch(_ batch: BatchRelease, _ effects: Effects<EventNumber>, _ line: UnsafeRawBufferPointer,
                                   key: UnsafeRawBufferPointer, at t: Instant, number: EventNumber, slot: Int32,
                                   borrowing: Bool) throws(OutputError) {
        precondition(effects.hold && effects.discarded == nil, "Scheduler: a full batch must hold its last event")
        held.append(line, number: number, to: slot, borrowing: borrowing)
        if let due = effects.schedule {
            keys.timers.set(slot: slot, due: due)
        } else if effects.idle {
            keys.timers.cancel(slot: slot)
        }
        try writeBatch(batch, of: slot, at: t, key: key)
        if marks {
            episodes.handled(line, number: number, at: t, slot: slot, pending: false, borrowing: borrowing)
        }
        if effects.idle { release(slot) }
    }

    /// Writes the batch `slot` holds, oldest first, each line emitted at
    /// `time`. `key`: the key's bytes when the caller has them.
    mutating func writeBatch(_ batch: BatchRelease, of slot: Int32, at time: Instant,
                             key known: UnsafeRawBufferPointer? = nil) throws(OutputError) {
        let size = batch.size
        guard let first = held.first(slot), size > 0 else {
            preconditionFailure("Scheduler: a batch of \(batch.size) from a key that holds nothing")
        }
        counters.batches += 1
        if Int64(size) > counters.largestBatch { counters.largestBatch = Int64(size) }
        let key = known ?? (Sink.readsKeys || Observer.isActive ? keys.key(of: slot)
                                                                 : UnsafeRawBufferPointer(start: nil, count: 0))
        let atEnd = finishing
        if Observer.isActive { observer.batched(batch, first: first) }
        counters.emitted += 1
        writingHeld = slot
        try write(Emission(line: held.firstLine(slot), time: time, number: first, key: key, slot: slot,
                           batchIndex: 0, batchSize: size), atEnd: atEnd)
        writingHeld = -1
        held.dropFirstOfBatch(slot)
        guard size > 1 else { return }
        // The queue is reached through a pointer: writing touches the sink,
        // never the held lines, so it stays where it is meanwhile.
        let queue = held.queue(slot)
        var index: Int32 = 1
        try queue.pointee.removeAll { (line, number) throws(OutputError) in
            held.queuedLineGone()
            counters.emitted += 1
            try write(Emission(line: line, time: time, number: number, key: key, slot: slot,
                               batchIndex: index, batchSize: size), atEnd: atEnd)
            index += 1
        }
        precondition(index == size, "Scheduler: a batch of \(size) wrote \(index) lines")
    }
}
