// `--resolve-after Q`: each key's episodes (SPEC Episodes). An episode opens
// with a key's first output line (`first`), goes on with its later ones
// (`repeat`) and closes with a copy of the key's last input line
// (`resolved`) at T = max(t + Q, e): t the key's last event, e the emission
// time of its last pending event. The scheduler keeps this only when the
// run marks (`Scheduler.marks`): a run whose sink cannot mark compiles none
// of its hooks, and a counted run without the flag skips them.
//
// A key's episode is a plain value (open or not, its last event's number,
// time and line), so `--state` can save and restore it. The last line is
// kept in a `HeldLines` of its own: borrowed from the reader's buffer and
// copied only when the reader is about to reuse it, so a key's last line
// costs at most one copy per buffer refill, not one per event.
//
// T is a timer of its own per key (a TimerHeap), due when the key
// has an open episode and holds nothing: after an event that leaves nothing
// pending (t + Q), or after the emission that empties its pending events
// (max(t + Q, e)). An event that leaves something pending disarms it. The
// heap is told lazily, as TimerHeap itself moves pushed-back timers: a
// key's T only grows while its episode is open, so an entry already in the
// heap is left where it is, and when it comes due before T it is put back
// at T (once per Q per key, not once per event); a disarmed one is dropped
// then. An entry is in the heap only while its key's episode is open.
//
// Same-time order: a resolved line takes its last line's input position
// among the outputs due at T, after its key's own output at T (a pending
// line emitted at T comes first, and a resolved line armed by it at T is
// put in its place among those still to come).

/// The episodes of every key, by slot.
struct EpisodeBook: ~Copyable {
    /// One key's episode.
    struct Record {
        var open = false
        /// The key's policy said idle while the episode was open: the key is
        /// forgotten when the episode closes.
        var policyIdle = false
        /// The key's last event's time.
        var lastTime: Instant = 0
        /// When the episode resolves, if armed.
        var resolveAt: Instant = .max
        /// Where the key's entry in `timers` is due (`.max`: none).
        var queuedAt: Instant = .max
    }

    let quiet: Nanoseconds
    var records = SlotArray(empty: Record(), capacity: 1)
    /// Each key's last input line (and its number).
    var lastLines = HeldLines()
    let timers = TimerHeap()
    /// The mark of the last output line (a batch's later lines carry it).
    var lastMark = EpisodeMark.none
    var opened: Int64 = 0
    var resolved: Int64 = 0
    var openNow: Int64 = 0
    var peakOpen: Int64 = 0
    /// What is due at one instant, reused: (number, 0 a timer, 1 a
    /// resolution), slot.
    var due: [(number: EventNumber, resolves: Bool, slot: Int32)] = []

    init(quiet: Nanoseconds) { self.quiet = quiet }

    /// The mark of an output line, which opens its key's episode when none
    /// is open. A batch's later lines share its first line's mark.
    @inline(__always)
    mutating func mark(_ emission: Emission) -> EpisodeMark {
        if emission.batchIndex > 0 { return lastMark }
        let mark: EpisodeMark
        if emission.slot < 0 {
            mark = .exempt
        } else if emission.mark == .resolved {
            mark = .resolved
        } else {
            let s = Int(emission.slot)
            records.reserve(s)
            if records[s].open {
                mark = .repeat
            } else {
                records.pointer(to: s).pointee.open = true
                opened += 1
                openNow += 1
                if openNow > peakOpen { peakOpen = openNow }
                mark = .first
            }
        }
        lastMark = mark
        return mark
    }

    /// An event of `slot` was handled: it is the key's last line. Arms T
    /// when the key has an open episode and nothing pending.
    @inline(__always)
    mutating func handled(_ line: UnsafeRawBufferPointer, number: EventNumber, at t: Instant, slot: Int32,
                          pending: Bool, borrowing: Bool) {
        let s = Int(slot)
        records.reserve(s)
        if lastLines.first(slot) == nil {
            lastLines.append(line, number: number, to: slot, borrowing: borrowing)
        } else {
            lastLines.replaceOnly(slot, with: line, number: number, borrowing: borrowing)
        }
        let record = records.pointer(to: s)
        record.pointee.lastTime = t
        record.pointee.policyIdle = false
        guard record.pointee.open else { return }
        if pending {
            record.pointee.resolveAt = .max
        } else {
            arm(record, slot, at: Instant(nanoseconds: t.nanoseconds &+ quiet.count))
        }
    }

    /// A pending event of `slot` was emitted at `e`; `more` when others
    /// are still pending.
    @inline(__always)
    mutating func emittedPending(_ slot: Int32, at e: Instant, more: Bool) {
        let record = records.pointer(to: Int(slot))
        guard record.pointee.open, !more else { return }
        arm(record, slot, at: max(record.pointee.lastTime.saturatingAdd(quiet), e))
    }

    // `mutating`, though only `timers` (a class) changes: a non-mutating
    // method of this struct is handed a copy of it (232 bytes, a memcpy
    // on every line `--resolve-after` handles).
    @inline(__always)
    private mutating func arm(_ record: UnsafeMutablePointer<Record>, _ slot: Int32, at due: Instant) {
        // Past the end of time (a timestamp near Int64's end): never.
        record.pointee.resolveAt = due < record.pointee.lastTime ? .max : due
        if record.pointee.queuedAt == .max { queue(record, slot, at: record.pointee.resolveAt) }
    }

    private mutating func queue(_ record: UnsafeMutablePointer<Record>, _ slot: Int32, at due: Instant) {
        guard due != .max else { return }
        record.pointee.queuedAt = due
        timers.set(slot: slot, due: due)
    }

    /// The entry of `slot` was popped from `timers` at `due`: true when the
    /// episode resolves now; otherwise the entry is put back at the key's
    /// T, if it has one (see above).
    mutating func popped(_ slot: Int32, at due: Instant) -> Bool {
        let record = records.pointer(to: Int(slot))
        record.pointee.queuedAt = .max
        guard record.pointee.open else { return false }
        if record.pointee.resolveAt == due { return true }
        if record.pointee.resolveAt > due { queue(record, slot, at: record.pointee.resolveAt) }
        return false
    }

    /// The policy of `slot` said idle: true when the key may be forgotten
    /// now (no open episode), which also forgets its last line.
    @inline(__always)
    mutating func mayRelease(_ slot: Int32) -> Bool {
        let s = Int(slot)
        guard s < records.capacity else { return true }
        let record = records.pointer(to: s)
        if record.pointee.open {
            record.pointee.policyIdle = true
            return false
        }
        forget(slot)
        return true
    }

    /// Whether the episode of `slot` is due to resolve at `due`. Never at
    /// the end of time: `.max` is also the T of an episode with none (a
    /// key holding lines, a T past the end), and a key at that instant may
    /// still hold lines due there (a `--rate` backlog pinned to it).
    func resolves(_ slot: Int32, at due: Instant) -> Bool {
        let record = records[Int(slot)]
        return due != .max && record.open && record.resolveAt == due
    }

    /// Closes the episode of `slot`; true when its key may be forgotten now.
    mutating func close(_ slot: Int32) -> Bool {
        let record = records.pointer(to: Int(slot))
        record.pointee.open = false
        record.pointee.resolveAt = .max
        resolved += 1
        openNow -= 1
        return record.pointee.policyIdle
    }

    /// The key of `slot` is forgotten: so is its last line.
    mutating func forget(_ slot: Int32) {
        records.pointer(to: Int(slot)).pointee = Record()
        if lastLines.first(slot) != nil { lastLines.dropFirst(slot) }
        lastLines.release(slot)
    }

    /// Copies the last lines still borrowed: the reader reuses its buffer.
    mutating func keepBorrowed() { lastLines.keepBorrowed() }
}

extension EpisodeBook {
    /// `--state`: the T the episode of `slot` is saved with (nil: none
    /// open). When the key holds lines that go out at `now` (`goingOut`:
    /// the exit's snapshot), they open the episode if none is, and T is
    /// max(t + Q, now); a periodic save counts them as owed.
    func savedResolution(_ slot: Int32, holding: Bool, goingOut: Bool, at now: Instant) -> Instant? {
        let s = Int(slot)
        guard s < records.capacity, lastLines.first(slot) != nil else { return nil }
        let record = records[s]
        guard record.open || (holding && goingOut) else { return nil }
        return holding ? max(record.lastTime.saturatingAdd(quiet), now) : record.resolveAt
    }

    /// `--state`: an episode saved open by a previous run goes on for
    /// `slot`, whose key has seen no event yet in this run: its last line
    /// (copied) numbered `number`, resolving at `resolveAt`. `policyIdle`:
    /// the key is forgotten when it closes.
    mutating func reopen(_ slot: Int32, lastLine: UnsafeRawBufferPointer, number: EventNumber, resolveAt: Instant,
                         policyIdle: Bool) {
        records.reserve(Int(slot))
        if lastLines.first(slot) == nil {
            lastLines.append(lastLine, number: number, to: slot, borrowing: false)
        } else {
            lastLines.replaceOnly(slot, with: lastLine, number: number, borrowing: false)  // a key saved twice
        }
        let record = records.pointer(to: Int(slot))
        if !record.pointee.open { openNow += 1 }
        record.pointee.open = true
        record.pointee.policyIdle = policyIdle
        let (back, overflow) = resolveAt.nanoseconds.subtractingReportingOverflow(quiet.count)
        record.pointee.lastTime = overflow ? resolveAt : Instant(nanoseconds: back)
        if openNow > peakOpen { peakOpen = openNow }
        arm(record, slot, at: resolveAt)
    }

    /// `--stats`' rows.
    func report(into stats: inout SchedulerStats) {
        stats.episodesOpened = opened
        stats.episodesResolved = resolved
        stats.peakOpenEpisodes = peakOpen
        stats.openEpisodes = openNow
    }
}
