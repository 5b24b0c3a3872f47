// What the driver and the run plan ask of the scheduler besides events and
// time: lines outside the policy, writing out what is buffered, the
// observer's results. The driver never reaches into the sink or the
// observer itself. At the end, what tests ask: a scheduler nothing watches,
// and what a keyed one keeps allocated.

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable {
    /// A line that never reached the policy: an empty or a bad-time line
    /// skipped (discarded now), or one `--on-bad-time pass` writes at once,
    /// outside the policy; `key` is the key it would have had.
    /// An `--exempt` line is one too, emitted at its event time: what is
    /// due by then goes out first.
    package mutating func bypass(_ line: UnsafeRawBufferPointer, number: EventNumber, _ why: Bypass, at time: Instant,
                                 key: UnsafeRawBufferPointer) throws(OutputError) {
        if why == .exempt { try advance(to: time) }
        if Observer.isActive { observer.bypassed(number, why, at: time) }
        switch why {
        case .empty, .badTimeSkipped:
            try dropped?.write(line, at: time)
        case .badTimePassed, .exempt:
            var emission = Emission(line: line, time: time, number: number, key: key)
            guard marks else {
                try sink.emit(emission)
                return
            }
            // Outside the policy: in no episode.
            emission.mark = .exempt
            try sink.emitMarked(emission)
        }
    }

    /// Writes out what the `--dropped` file and the sink buffer, in that
    /// order. The first error ends it: the driver's end writes out the other
    /// (`flushDropped`, `flushOutput`), where a second signal's count of
    /// what it did not write is kept.
    package mutating func flush() throws(OutputError) {
        try dropped?.flush()
        try sink.flush()
    }

    /// stdout's reader went away (SPEC: exit 0 at once): the lines still
    /// held never reach stdout, so they are discarded now, in input order,
    /// to `--dropped` at `time` and owed by their keys, as every line that
    /// does not reach stdout is (SPEC Accounting). A line whose write was
    /// under way counts as emitted, as it did.
    package mutating func discardHeld(at time: Instant) throws(OutputError) {
        if Sink.counts || droppedRef != nil {
            var lines: [(number: EventNumber, slot: Int32, line: UnsafeRawBufferPointer)] = []
            held.forEachHeld(but: writingHeld) { lines.append(($1, $0, $2)) }
            lines.sort { $0.number < $1.number }
            for (_, slot, line) in lines { try account(discarding: line, at: time, slot: slot) }
        }
        held.removeAll()
        writingHeld = -1
    }

    /// A line read but never handled, stdout's reader gone (the driver's
    /// `discardUnhandled`): an event in, discarded at `time` to `--dropped`,
    /// owed by no key.
    package mutating func discardUnhandled(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        counters.eventsIn += 1
        if let droppedRef { try Self.write(line, at: time, to: droppedRef) }
    }

    /// Writes out the `--dropped` file alone (stdout failed or went away).
    package func flushDropped() throws(OutputError) { try dropped?.flush() }

    /// Writes out stdout's buffer alone (the `--dropped` file failed, or a
    /// second signal gave up one of the two writes).
    package mutating func flushOutput() throws(OutputError) { try sink.flush() }

    /// A good moment for the observer to write out what it gathered.
    package mutating func flushInsight() { if Observer.isActive { observer.flush() } }

    /// `--stats`' keys with the most events in, so far.
    package func topKeys() -> [KeyCount]? {
        var report = RunReport()
        observer.results(into: &report, marblesWidth: nil)
        return report.topKeys
    }

    /// What the observer has for the report at the end of the run.
    package mutating func reportInsight(into report: inout RunReport, columns: Int) {
        guard Observer.isActive else { return }
        observer.flush()
        observer.results(into: &report, marblesWidth: columns)
    }
}

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable, Observer == NoObserver {
    /// A scheduler nothing watches (tests).
    package init(policy: P, keys: Keys.Type, sink: consuming Sink, dropped: FileWriter? = nil) {
        self.init(policy: policy, keys: keys, sink: sink, observer: NoObserver(), dropped: dropped)
    }
}

extension Scheduler where Keys == ManyKeys<P.State> {
    /// What stays allocated, for memory tests: slots, keys in the key table,
    /// bytes of the buffers held lines are kept in.
    var footprint: (slots: Int, tableKeys: Int, lineBytes: Int) {
        (keys.slotCount, keys.tableCount, held.bufferBytes)
    }
}
