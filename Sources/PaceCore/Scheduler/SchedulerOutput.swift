// The scheduler's output and accounting: an emitted line written (the
// marking and counting layers, if any, add their part), a discarded one
// owed and written to `--dropped`, a key joining the table or going idle.
// Scheduler.swift calls in here on its per-line path: these are inlined.

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable {
    /// Writes an emitted line (the counting layer, if any, adds its count).
    @inline(__always)
    mutating func write(_ emission: Emission, atEnd: Bool) throws(OutputError) {
        guard marks else {
            if Observer.isActive { observer.emitted(emission, atEnd: atEnd) }
            try sink.emit(emission)
            return
        }
        var emission = emission
        emission.mark = episodes.mark(emission)
        if Observer.isActive { observer.emitted(emission, atEnd: atEnd) }
        try sink.emitMarked(emission)
    }

    /// An event of `slot` is discarded at `time`: its key owes one more
    /// (`--count`), and its bytes go to `--dropped`'s file. Called only
    /// when the run does either.
    @inline(__always)
    mutating func account(discarding line: UnsafeRawBufferPointer, at time: Instant,
                                  slot: Int32) throws(OutputError) {
        if Sink.counts { sink.discarded(slot: slot) }
        if let droppedRef { try Self.write(line, at: time, to: droppedRef) }
    }

    /// Writes a discarded line to `--dropped`'s file, which `dropped` keeps
    /// alive for as long as the scheduler is.
    @inline(__always)
    static func write(_ line: UnsafeRawBufferPointer, at time: Instant,
                              to file: Unmanaged<FileWriter>) throws(OutputError) {
        do {
            try file._withUnsafeGuaranteedRef { try $0.write(line, at: time) }
        } catch let error as OutputError {
            throw error
        } catch {
            preconditionFailure("Scheduler: --dropped failed with \(error)")
        }
    }

    /// A key joined the table: the counting layer gives it back what it
    /// owed when it was forgotten; the observer counts distinct keys.
    @inline(never)
    mutating func keyJoined(_ found: KeySlot, _ key: UnsafeRawBufferPointer) {
        if Sink.counts {
            sink.keyJoined(slot: found.slot, key: key, hash: found.hash, keysInTable: found.keysInTable)
        }
        if Observer.isActive, observer.keyJoined(key, hash: found.hash) { counters.distinctKeys += 1 }
        // A slot a loaded key left before any event reached it.
        if Observer.isActive && !unseenLoadedKeys.isEmpty { unseenLoadedKeys.remove(found.slot) }
    }

    /// `--state`: an event reached a key that was in the table from the
    /// start (loaded), perhaps its first of the run. The observer counts a
    /// key at its first event, as it counts a key that joins (the distinct
    /// keys and the per-key table are of the keys with events in the run).
    @inline(never)
    mutating func loadedKeySeen(_ found: KeySlot, _ key: UnsafeRawBufferPointer) {
        guard unseenLoadedKeys.remove(found.slot) != nil else { return }
        if observer.keyJoined(key, hash: found.hash) { counters.distinctKeys += 1 }
    }

    /// The key of `slot` went idle: its state is forgotten; a key that
    /// leaves the table takes what it owes to the counting layer.
    @inline(__always)
    mutating func release(_ slot: Int32) {
        // A key with an open episode is remembered until it closes.
        if marks && !episodes.mayRelease(slot) { return }
        precondition(held.first(slot) == nil, "Scheduler: a key went idle holding an event")
        held.release(slot)
        if P.batches { held.releaseQueue(slot) }
        keys.release(slot, counters: &counters, telling: &sink)
    }
}
