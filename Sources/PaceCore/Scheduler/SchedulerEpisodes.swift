// The scheduler's side of `--resolve-after` (the episodes themselves are in
// Episodes.swift): timers of two kinds due at one instant fired in SPEC's
// order, the resolved lines written, and end of input. Scheduler.swift only
// calls in here behind `marks`, which is false unless the run has
// `--resolve-after` (and its counting layer marks).

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable {
    /// The earliest timer of either kind (policy timers that only forget
    /// left out unless `lapsed`).
    @inline(__always)
    func firstEpisodicDue(lapsed: Bool) -> Instant? {
        let policyDue = P.timersOnlyForget && !lapsed ? nil : keys.timers.firstDue
        guard let episodeDue = episodes.timers.firstDue else { return policyDue }
        guard let policyDue else { return episodeDue }
        return min(policyDue, episodeDue)
    }

    /// `advance(to:)` with episodes: fires what is due at or before `now`.
    @inline(never)
    mutating func advanceEpisodes(to now: Instant) throws(OutputError) {
        while let due = firstEpisodicDue(lapsed: false), due <= now {
            try fireEpisodic(at: due, stampedAt: nil, policyTimers: !P.timersOnlyForget, resolutions: true)
        }
    }

    /// Fires the timers due at `due`: the policy's (when `policyTimers`) and
    /// the resolutions (when `resolutions`), in SPEC's order: by the input
    /// position of the line each emits, a key's resolution after its own
    /// output at that time. Emissions are stamped `stamp`, or `due`.
    @inline(never)
    mutating func fireEpisodic(at due: Instant, stampedAt stamp: Instant?, policyTimers: Bool,
                               resolutions: Bool) throws(OutputError) {
        var batch = episodes.due
        episodes.due = []
        defer { episodes.due = batch }
        batch.removeAll(keepingCapacity: true)
        if policyTimers {
            while keys.timers.firstDue == due {
                let slot = keys.timers.popFirst()
                batch.append((held.first(slot) ?? .max, false, slot))
            }
        }
        if resolutions {
            while episodes.timers.firstDue == due {
                let slot = episodes.timers.popFirst()
                // An entry due before its key's T is put back at T.
                guard episodes.popped(slot, at: due) else { continue }
                batch.append((episodes.lastLines.first(slot)!, true, slot))
            }
        }
        batch.sort { ($0.number, $0.resolves ? 1 : 0) < ($1.number, $1.resolves ? 1 : 0) }
        var next = 0
        while next < batch.count {
            let (_, resolves, slot) = batch[next]
            next += 1
            if resolves {
                try resolve(slot, at: stamp ?? due)
                continue
            }
            try fire(slot, due: due, stampedAt: stamp)
            // Its emission may have armed its key's resolution at this very
            // instant: it goes in its line's place among those still to come.
            guard resolutions, episodes.resolves(slot, at: due) else { continue }
            // Resolved here, not from the heap: a later entry of it is dropped when popped.
            let entry = (episodes.lastLines.first(slot)!, true, slot)
            var at = next
            while at < batch.count, (batch[at].number, batch[at].resolves ? 1 : 0) < (entry.0, 1) { at += 1 }
            batch.insert(entry, at: at)
        }
    }

    /// Writes the resolved line of `slot` at `time` and closes its episode;
    /// the key is forgotten if its policy is idle.
    mutating func resolve(_ slot: Int32, at time: Instant) throws(OutputError) {
        precondition(held.first(slot) == nil, "Scheduler: an episode resolved while its key held an event")
        let key = Sink.readsKeys || Observer.isActive ? keys.key(of: slot) : UnsafeRawBufferPointer(start: nil, count: 0)
        var emission = Emission(line: episodes.lastLines.firstLine(slot), time: time,
                                number: episodes.lastLines.first(slot)!, key: key, slot: slot,
                                batchSize: P.batches ? 1 : 0)
        emission.mark = .resolved
        if Observer.isActive { observer.emitted(emission, atEnd: finishing) }
        // Closed before the write, as an emitted line is counted before
        // its own: a write that fails (a second signal's, a closed stdout's)
        // leaves the episode resolved in `--stats`, as `--trace` said it.
        let idle = episodes.close(slot)
        try sink.emitMarked(emission)
        if idle { release(slot) }
    }

    /// Live mode's end of input with episodes: the pending lines go out at
    /// once, stamped `now`, as without them; then, when `closing`, every
    /// open episode closes at once, in the order of its key's last event,
    /// stamped `now`. `closing` false leaves them open for `--state` to save
    /// (`openEpisodes`).
    mutating func finishEpisodes(emittingAt now: Instant, closing: Bool) throws(OutputError) {
        finishing = true
        defer { finishing = false }
        while let due = keys.timers.firstDue {
            try fireEpisodic(at: due, stampedAt: now, policyTimers: true, resolutions: false)
        }
        guard closing else { return }
        var open: [(number: EventNumber, slot: Int32)] = []
        while episodes.timers.firstDue != nil {
            let slot = episodes.timers.popFirst()
            episodes.records.pointer(to: Int(slot)).pointee.queuedAt = .max
            if episodes.records[Int(slot)].open { open.append((episodes.lastLines.first(slot)!, slot)) }
        }
        open.sort { $0.number < $1.number }
        for (_, slot) in open { try resolve(slot, at: now) }
    }

    /// The end of replay's running on, every timer fired: the episodes
    /// still open are those whose T lies past the end of time (a last event
    /// near Int64's end, plus Q), which no timer holds. They close at the
    /// end of time (`time`), in the order of their keys' last events, so
    /// that every `first` has its `resolved` and its owed count (SPEC). A
    /// key still holding a line (due past the end as well) keeps its own.
    mutating func closeEpisodesPastTheEnd(at time: Instant) throws(OutputError) {
        for slot in openSlotsByLastEvent() where held.first(slot) == nil { try resolve(slot, at: time) }
    }

    /// The slots of the open episodes, in the order of their keys' last
    /// events: a walk of every record, for the end of a run.
    private func openSlotsByLastEvent() -> [Int32] {
        var open: [(number: EventNumber, slot: Int32)] = []
        for s in 0..<episodes.records.capacity where episodes.records[s].open {
            guard let number = episodes.lastLines.first(Int32(s)) else { continue }
            open.append((number, Int32(s)))
        }
        open.sort { $0.number < $1.number }
        return open.map(\.slot)
    }

    /// `--state` at start, after `load`: the loaded episodes whose T passed
    /// while pace was down resolve at once, in the order of their T,
    /// stamped `now` (SPEC State).
    package mutating func resolveOverdueEpisodes(at now: Instant) throws(OutputError) {
        guard marks else { return }
        while let due = episodes.timers.firstDue, due <= now {
            try fireEpisodic(at: due, stampedAt: now, policyTimers: false, resolutions: true)
        }
    }

    /// The open episodes, as plain values, in the order of their keys' last
    /// events (for `--state`: what a live end of input that does not close
    /// them hands over).
    package func openEpisodes() -> [OpenEpisode] {
        guard marks else { return [] }
        return openSlotsByLastEvent().map { slot in
            let record = episodes.records[Int(slot)]
            return OpenEpisode(key: Array(keys.key(of: slot)), lastNumber: episodes.lastLines.first(slot)!,
                               lastTime: record.lastTime, lastLine: Array(episodes.lastLines.firstLine(slot)),
                               resolveAt: record.resolveAt == .max ? nil : record.resolveAt)
        }
    }
}

/// An open episode as a plain value (for `--state`).
package struct OpenEpisode: Equatable, Sendable {
    package var key: [UInt8]
    package var lastNumber: EventNumber
    package var lastTime: Instant
    package var lastLine: [UInt8]
    /// When it resolves, if nothing of its key is pending.
    package var resolveAt: Instant?
}
