// The one input driver, for replay, live mode and the tests that run either.
// It owns everything the modes share: reading lines, numbering them, a signal
// ending input, building keys, empty and bad-time lines, handing events to
// the scheduler and how the run ended. A mode supplies only what differs:
// where an event's time comes from, and how to wait for input.
//
//   replay  time from each line's timestamp; waiting is a blocking read
//   live    time from the clock at each read; waiting is ppoll until input,
//           the next timer, a signal or stdout's reader going away
//
// Lines are handed to the scheduler as slices of the reader's buffer
// (`borrowing`); before every read, the scheduler copies the ones it still
// holds.
//
// Run: this room holds the driver, what a mode supplies (RunMode.swift), the
// modes (Replay.swift, Live.swift), the run plan that turns a configuration
// into a specialised run (RunPlan.swift), the report a run hands back
// (RunReport.swift), the signals a run is told of (RunSignals, in
// RunPlan.swift) and SIGUSR1's summary while a write waits
// (WriteWaitSummary.swift).

/// Runs input through `scheduler` until end of input, a signal, a failure or
/// a bad timestamp under `--on-bad-time error`. `summary` says which rows
/// `--stats` has (`peak backlog`, `uncounted discards`): SIGUSR1's summary of
/// the run so far has them too. `watch` (`--metrics`, `--progress`) is shown
/// the figures where the loop would wait or read, and at the end.
func drive<P: Policy, Keys: KeyStore<P.State> & ~Copyable, Sink: LineSink & ~Copyable, Observer: SchedulerObserver,
           Mode: RunMode>(
    _ scheduler: inout Scheduler<P, Keys, Sink, Observer>, _ input: inout LineReader, mode: inout Mode,
    keys: KeyExtractor, onBadTime: BadTimeAction, summary: RunReport, signals: RunSignals,
    state: StateKeeper? = nil, watch: RunWatch? = nil, exempt: ExemptionMatcher? = nil
) -> RunReport where P.Payload == EventNumber {
    var report = summary
    /// `--state`: the keys as the run leaves them, taken before live mode's
    /// end of input writes the pending lines (which end windows).
    var lastState: StateSnapshot?
    /// A second signal ends pace without a save (SPEC).
    var saves = state != nil
    var lineNumber: EventNumber = 0
    // `--exempt`'s matcher, reached with no reference taken (a strong
    // optional cost every line a retain and a release, flag or not).
    let exemptRef = exempt.map { Unmanaged.passUnretained($0) }
    /// Input has ended (end of file, or a signal): the lines still buffered,
    /// a last one lacking its `\n` included, are the last.
    var ending = false
    // Signals while a write waits: `--exec`'s commands signalled, SIGUSR1
    // answered from the counters as the loop last saw them
    // (WriteWaitSummary.swift).
    let blocked = signals.reachWrites ? WriteWaitSummary(signals: signals, watch: watch, runner: mode.commands) : nil
    if let blocked { WriteWait.meanwhile { blocked.answer(waitingOn: $0) } }

    do throws(OutputError) {
        // `--state`: the episodes a previous run saved whose T passed.
        if Mode.isLive && state != nil { try scheduler.resolveOverdueEpisodes(at: mode.now) }
        reading: while true {
            guard let line = input.nextBuffered() else {
                blocked?.capture(report, scheduler.stats, clamped: mode.clamped, commands: mode.commandStats,
                                 pending: scheduler.heldEvents)
                // Lines held back point into the buffer that fill() moves
                // and overwrites.
                scheduler.keepBorrowedLines()
                try mode.caughtUp()
                // First what is due by now: a wait that came back late (a
                // loaded or stopped pace) may find the end of input together
                // with due timers, which release held lines and forget keys.
                if Mode.isLive { try scheduler.advance(to: mode.now) }
                if ending {
                    // Live end of input under a shaper (`--rate`): its held
                    // events keep their pace, so the loop goes on waiting,
                    // for timers only, until none is held; a signal, or
                    // stdout's reader going away, ends that as it ends input.
                    // Asked after the advance: asked before it, lines it then
                    // released left the loop waiting for a timer no longer set.
                    guard Mode.isLive && P.keepsPaceAfterInput && report.end == .endOfInput
                        && scheduler.heldEvents > 0 else { break reading }
                    mode.inputEnded()
                }
                scheduler.flushInsight()
                // A signal that came while lines were being handled is seen
                // here, before the wait; one that comes during the wait
                // interrupts it.
                let signal = signals.termination()
                if signals.takeStatsRequest() {
                    watch?.erase()
                    report.writeStatsSoFar(scheduler.stats, clamped: mode.clamped, commands: mode.commandStats,
                                           topKeys: scheduler.topKeys(), pending: Int64(scheduler.heldEvents))
                }
                if signal != 0 {
                    report.end = .signal(signal)
                    mode.tick()
                    // Input ends here, as at end of input: an unfinished
                    // last line from a pipe is still a line (a regular
                    // file's is left unread there: LineReader.endInput).
                    _ = input.endInput()
                    ending = true
                    continue reading
                }
                var wake = scheduler.nextDeadline
                if let state {
                    try state.tick(scheduler, now: mode.now)
                    if let save = state.nextSave(eventsSeen: scheduler.eventsSeen) { wake = min(wake ?? save, save) }
                }
                if let watch {
                    // Live: the time now, not the last read's (lines handled
                    // since may have waited on stdout): `--metrics`' second
                    // is counted from when it was really written.
                    if Mode.isLive { mode.tick() }
                    if let due = try scheduler.show(watch, report, commands: mode.commandStats, live: Mode.isLive,
                                                    now: mode.now), Mode.isLive {
                        wake = min(wake ?? due, due)
                    }
                }
                switch mode.wait(until: wake) {
                case .interrupted:
                    continue reading
                case .outputClosed:
                    report.end = .brokenPipe
                    break reading
                case .deadline:
                    mode.tick()
                    try scheduler.advance(to: mode.now)
                case .commandsReady:
                    try mode.commandsReady()
                case .inputReady:
                    // About to wait for input: what is decided goes out first
                    // (replay's watch then looks again: ReplayMode.fill).
                    let fill = try mode.fill(&input, beforeWaiting: { () throws(OutputError) in
                        try scheduler.flush()
                    })
                    mode.tick()
                    switch fill {
                    case .data, .interrupted, .wouldBlock:
                        // wouldBlock: a non-blocking descriptor someone
                        // else drained; nothing to read after all.
                        continue reading
                    case .endOfInput:
                        ending = true
                    case let .failed(error):
                        report.end = .inputFailed(error)
                        break reading
                    }
                }
                continue reading
            }

            lineNumber += 1
            // What fields and timestamps see: the line, but line 1 without a
            // byte-order mark (which a `record` prefix takes along).
            let fields = lineNumber == 1 ? withoutByteOrderMark(line) : line
            if hasNoContent(fields) {
                report.emptyLines += 1
                if !Mode.isLive {
                    try scheduler.bypass(line, number: lineNumber, .empty, at: mode.now, key: .empty)
                    continue reading
                }
            }
            switch try mode.stamp(line, fields: fields) {
            case let .event(t, contentStart, timeField):
                let content = contentStart == 0 ? line : UnsafeRawBufferPointer(rebasing: fields[contentStart...])
                var key = UnsafeRawBufferPointer.empty
                // A record's line is the line as read live, whose fields
                // did not see line 1's byte-order mark either.
                if Keys.isKeyed {
                    key = contentStart == 0 ? keys.key(of: fields, after: timeField)
                        : keys.key(of: lineNumber == 1 ? withoutByteOrderMark(content) : content)
                }
                // `--exempt`: outside the policy, at its event time, with the
                // key it would have had (PACE_KEY). One predictable branch
                // a line without it.
                if let exemptRef, exemptRef._withUnsafeGuaranteedRef({
                    $0.exempts(contentStart == 0 ? fields : lineNumber == 1 ? withoutByteOrderMark(content) : content,
                               key: key)
                }) {
                    report.exempt += 1
                    try scheduler.bypass(content, number: lineNumber, .exempt, at: t, key: key)
                    continue reading
                }
                try scheduler.send(content, key: key, at: t, number: lineNumber, borrowing: true)
            case let .bad(why):
                report.badTime += 1
                switch onBadTime {
                case .error:
                    report.end = .badTime(line: lineNumber, why)
                    break reading
                case .skip:
                    try scheduler.bypass(line, number: lineNumber, .badTimeSkipped, at: mode.now, key: .empty)
                case .pass:
                    report.passed += 1
                    // Outside the policy: it counts 1. Its key is the one
                    // the line would have had (PACE_KEY).
                    let key = Keys.isKeyed ? keys.key(of: fields) : .empty
                    try scheduler.bypass(line, number: lineNumber, .badTimePassed, at: mode.now, key: key)
                }
            }
        }
        // End of input, a signal, a read error or a bad timestamp: in
        // replay the virtual clock runs on until every timer has fired;
        // live, what is due fires at its time, then every pending line
        // comes out now, in the order the clock would have released them.
        // A closed stdout takes nothing more: what is held is discarded.
        blocked?.capture(report, scheduler.stats, clamped: mode.clamped, commands: mode.commandStats,
                         pending: scheduler.heldEvents)
        if report.end == .brokenPipe {
            try scheduler.discardHeld(at: mode.now)
        } else {
            if Mode.isLive {
                try scheduler.advance(to: mode.now)
                if saves, let state {
                    lastState = state.timed("copied", keys: scheduler.heldKeys) {
                        scheduler.snapshot(at: mode.now, heldLinesOwed: false)
                    }
                }
                // With --state, open episodes are saved open, not closed.
                try scheduler.finish(emittingAt: mode.now, closingEpisodes: !saves)
            } else {
                try scheduler.finish()
            }
        }
        try scheduler.flush()
    } catch {
        if case .interrupted = error { saves = false }
        report.end(by: error, held: Int64(scheduler.heldEvents), signal: signals.termination())
        // What the other output holds is still written out: the lines
        // discarded so far, when stdout's reader went away (with the lines
        // still held, which now never reach it); both outputs' buffers when
        // one failed or a second signal gave up one's write (the one that
        // failed has given up its buffer; a file takes the other's at once,
        // and a stalled FIFO's write gives up too, its lines counted).
        switch error {
        case .brokenPipe:
            do throws(OutputError) {
                try scheduler.discardHeld(at: mode.now)
                try scheduler.flushDropped()
            } catch {
                if case let .failed(target, errno) = error { report.end = .outputFailed(target: target, errno: errno) }
            }
        case .failed, .interrupted:
            do throws(OutputError) { try scheduler.flushDropped() } catch {
                // A run a second signal ended still says why the file failed.
                if case .signal = report.end, case let .failed(target, errno) = error {
                    report.alsoFailed = .outputFailed(target: target, errno: errno)
                }
            }
            do throws(OutputError) { try scheduler.flushOutput() } catch {
                if case let .interrupted(unwritten) = error {
                    report.linesNotWritten = (report.linesNotWritten ?? 0) + unwritten
                }
            }
        }
    }
    // `--exec`: every command run and waited for before `--state` and the
    // last `--metrics` take the run's figures (LiveCommands.swift).
    if let commands = mode.commands {
        waitForCommands(commands, &report, &scheduler, &input, mode: &mode, signals: signals, watch: watch)
        // A second signal ends pace without a save (SPEC).
        if signals.endNow() { saves = false }
    }
    // Input given up before its end: a regular file is left just past the
    // last line taken (after a second signal or a closed stdout too).
    switch report.end {
    case .signal, .brokenPipe:
        // The line read last went nowhere when the write that failed was a
        // timer's due before its event (replay): it is not taken either.
        let taken = scheduler.stats.eventsIn + (Mode.isLive ? 0 : report.emptyLines) + report.exempt + report.badTime
        let untaken = taken < lineNumber
        if untaken { input.untakeLastLine() }
        if input.leaveUnread() && untaken { mode.lineGivenBack() }
        if case .brokenPipe = report.end, !input.givesBack {
            discardUnhandled(&input, &scheduler, mode: &mode, report: &report)
        }
    default: break
    }
    report.countNotWritten(in: scheduler.dropped)
    if saves, let state {
        var snapshot = lastState ?? scheduler.snapshot(at: mode.now, heldLinesOwed: true)
        // `--exec`: taken now, after the last lines went to the commands.
        // After a signal, the lines still waiting never run.
        var signalled = false
        if case .signal = report.end { signalled = true }
        scheduler.addOwedByCommands(to: &snapshot, includingWaiting: signalled)
        if let code = state.save(snapshot) {
            switch report.end {
            case .endOfInput, .brokenPipe: report.end = .outputFailed(target: state.target, errno: code)
            default: break
            }
        }
    }
    mode.complete(&report)
    report.scheduler = scheduler.stats
    if let watch {
        let figures = scheduler.watchFigures(report, commands: report.commands ?? mode.commandStats,
                                             live: Mode.isLive, now: mode.now)
        report.watched(by: watch, figures)
    }
    if blocked != nil { WriteWait.meanwhile(nil) }
    return report
}

/// stdout's reader went away while lines read from a pipe were not handled
/// yet: taken from the input, which cannot have them back, they are
/// discarded as they are (to `--record` as read, then to `--dropped`),
/// counted in and dropped, not lost. No key owes them.
@inline(never)
private func discardUnhandled<P: Policy, Keys: KeyStore<P.State> & ~Copyable, Sink: LineSink & ~Copyable,
                              Observer: SchedulerObserver, Mode: RunMode>(
    _ input: inout LineReader, _ scheduler: inout Scheduler<P, Keys, Sink, Observer>, mode: inout Mode,
    report: inout RunReport
) where P.Payload == EventNumber {
    // An unfinished last line is a line, as at a signal.
    _ = input.endInput()
    do throws(OutputError) {
        while let line = input.nextBuffered() {
            try mode.unhandled(line)
            try scheduler.discardUnhandled(line, at: mode.now)
        }
        try scheduler.flushDropped()
    } catch {
        if case let .failed(target, errno) = error { report.end = .outputFailed(target: target, errno: errno) }
    }
}
