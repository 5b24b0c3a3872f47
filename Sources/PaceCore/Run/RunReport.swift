// What a run of pace reports back to the executable: how it ended (which
// decides the exit code and message) and the counters for `--stats`.

package enum RunEnd: Equatable, Sendable {
    /// Input ended; everything pending was emitted.
    case endOfInput
    /// `--on-bad-time error`: input treated as ending before line `line`.
    case badTime(line: Int64, BadTime)
    /// SIGINT or SIGTERM ended input; pending lines were emitted.
    case signal(Int32)
    /// Reading the input failed with this errno.
    case inputFailed(Int32)
    /// stdout's reader went away: a quiet, successful end.
    case brokenPipe
    /// Writing stdout or the record file failed.
    case outputFailed(target: String, errno: Int32)
}

package struct RunReport: Equatable, Sendable {
    package var end: RunEnd = .endOfInput
    package var scheduler = SchedulerStats()
    package var clamped: Int64 = 0
    package var badTime: Int64 = 0
    package var passed: Int64 = 0
    /// `--exempt`'s lines, written outside the policy.
    package var exempt: Int64 = 0
    /// Whether the summary has `--exempt`'s and `--then-every`'s rows.
    package var reportsExempt = false
    package var reportsThenEvery = false
    package var emptyLines: Int64 = 0
    /// `--stats` with `--key-field`: the keys with the most events in.
    package var topKeys: [KeyCount]?
    /// `topKeys` comes from the heavy-hitters summary (see HeavyHitters).
    package var topKeysEstimated = false
    /// `--marbles`' diagram, drawn after the run.
    package var marbles: String?
    /// A second SIGINT or SIGTERM ended pace at once: the lines it did not
    /// write (those of the output buffer not yet written, and the pending
    /// events still held).
    package var linesNotWritten: Int64?
    /// The `--dropped` and `--record` files a second signal kept lines out
    /// of, by name, with how many.
    package var filesNotWritten: [UnwrittenFile] = []
    /// The `--dropped` file's failure when writing it out after a second
    /// signal, whose end (exit status) the run keeps.
    package var alsoFailed: RunEnd?
    package struct UnwrittenFile: Equatable, Sendable {
        package let name: String
        package let lines: Int64
    }

    /// `--rate`: `--stats` shows the peak backlog (`scheduler.peakBacklog`).
    package var reportsBacklog = false

    /// A keyed run without `--stats` does not count its distinct keys (a set
    /// of every key seen, for a summary not asked for): SIGUSR1's summary
    /// says so instead of a number.
    package var distinctKeysUncounted = false

    /// `--batch`: `--stats` shows the batches and the largest one.
    package var reportsBatches = false

    /// `--count` was given: `--stats` shows the discards it could not count.
    package var counted = false

    /// `--resolve-after` was given: `--stats` shows the episodes' rows.
    package var reportsEpisodes = false

    /// Lines read and not yet decided (held by the policy: `--rate`'s
    /// waiting lines, a pending one) when SIGUSR1 asks for the run so far;
    /// neither emitted nor dropped yet. 0 at the end (everything pending was
    /// emitted by then, or, stdout closed, discarded), but after a second
    /// signal: the lines still held were never decided, and reach neither
    /// stdout nor `--dropped` (`--metrics`' pending counts them too).
    package var pending: Int64 = 0

    /// `--exec`'s counters.
    package var commands: CommandStats?
    /// What `--exec`'s commands add to the exit status: 0, 123 (one failed)
    /// or 1 (one could not be started).
    package var commandStatus: Int32 = 0
    package init() {}

    /// How a write that failed ends the run; `held` is the scheduler's
    /// pending events, which an interrupted run never writes, and `signal`
    /// the first terminating signal (a write is interrupted by a second).
    package mutating func end(by error: OutputError, held: Int64, signal: Int32) {
        switch error {
        case .brokenPipe: end = .brokenPipe
        case let .failed(target, errno): end = .outputFailed(target: target, errno: errno)
        case let .interrupted(unwritten):
            end = .signal(signal)
            linesNotWritten = unwritten + held
            pending = held
        }
    }

    /// Notes the lines a second signal kept out of `file`, if any.
    package mutating func countNotWritten(in file: FileWriter?) {
        if let file, file.linesNotWritten > 0 { filesNotWritten.append(UnwrittenFile(name: file.name, lines: file.linesNotWritten)) }
    }

    /// SIGUSR1: the `--stats` summary of the run so far, on stderr. Out of
    /// line: inlined, the summary's text made the driver's loop, which
    /// calls it, 5 to 9 instructions a line slower (its registers).
    @inline(never)
    func writeStatsSoFar(_ stats: SchedulerStats, clamped: Int64 = 0, commands: CommandStats? = nil,
                         topKeys: [KeyCount]?, pending: Int64 = 0) {
        var text = soFar(stats, clamped: clamped, commands: commands, topKeys: topKeys, pending: pending).statsText
        text.withUTF8 { try? writeAll(fd: 2, UnsafeRawBufferPointer($0), target: "stderr") }
    }

    /// The report of the run so far, with the counters of this moment.
    func soFar(_ stats: SchedulerStats, clamped: Int64 = 0, commands: CommandStats? = nil,
               topKeys: [KeyCount]?, pending: Int64 = 0) -> RunReport {
        var soFar = self
        soFar.commands = commands
        soFar.scheduler = stats
        soFar.clamped = clamped
        soFar.topKeys = topKeys
        soFar.pending = pending
        return soFar
    }

    /// Replay skips empty lines (live, they are events); `--on-bad-time
    /// skip` skips a line without a time. Both go to `--dropped`.
    package var skipsEmptyLines = false
    package var skipsBadTime = false

    /// Every line `--dropped` gets (SPEC: the metrics' discarded is
    /// `--stats`' dropped): events that entered the policy and did not come
    /// out and are not pending, lines skipped, and lines `--exec` never ran.
    package var dropped: Int64 {
        Self.discarded(scheduler, pending: pending, skipped: skipped, notRun: commands?.linesNotRun ?? 0)
    }

    /// The lines the run skipped (see `skipsEmptyLines`).
    var skipped: Int64 { (skipsEmptyLines ? emptyLines : 0) + (skipsBadTime ? badTime : 0) }

    /// Written or run: what the policy emitted, less the lines it emitted
    /// whose command never ran.
    package var emitted: Int64 { scheduler.emitted - (commands?.emittedNotRun ?? 0) }

    /// What `--dropped` gets, from the counters: the one formula of
    /// `--stats` and `--metrics`.
    static func discarded(_ stats: SchedulerStats, pending: Int64, skipped: Int64, notRun: Int64) -> Int64 {
        stats.eventsIn - stats.emitted - pending + skipped + notRun
    }

    /// `--stats`' summary for stderr.
    package var statsText: String {
        let distinct = distinctKeysUncounted ? "not counted (without --stats)"
            : scheduler.distinctKeysEstimated ? estimateText(scheduler.distinctKeys) : String(scheduler.distinctKeys)
        var rows: [(String, String)] = [
            ("events in", String(scheduler.eventsIn)),
            ("emitted", String(emitted)),
            ("dropped", String(dropped)),
        ]
        // Only where lines can be pending (a summary mid-run), so that the
        // final summary's rows stay as they were.
        if pending != 0 { rows.append(("pending", String(pending))) }
        rows += [
            ("distinct keys", distinct),
            ("peak active keys", String(scheduler.peakActiveKeys)),
            ("clamped timestamps", String(clamped)),
            ("bad-time lines", String(badTime)),
            ("passed through", String(passed)),
            ("empty lines", String(emptyLines)),
        ]
        if reportsExempt { rows.append(("exempt lines", String(exempt))) }
        if reportsThenEvery { rows.append(("then-every passes", String(scheduler.thenEveryPasses))) }
        if reportsBacklog { rows.append(("peak backlog", String(scheduler.peakBacklog))) }
        if reportsBatches {
            rows += [("batches", String(scheduler.batches)), ("largest batch", String(scheduler.largestBatch))]
        }
        if counted { rows.append(("uncounted discards", String(scheduler.uncountedDiscards))) }
        if reportsEpisodes {
            rows += [("episodes opened", String(scheduler.episodesOpened)),
                     ("episodes resolved", String(scheduler.episodesResolved)),
                     ("peak open episodes", String(scheduler.peakOpenEpisodes))]
        }
        if let commands {
            rows += [("commands run", String(commands.run)), ("commands failed", String(commands.failed)),
                     ("commands restarted", String(commands.restarted)), ("commands not run", String(commands.notRun))]
        }
        var text = "pace: stats:\n"
        for (name, value) in rows {
            text += "  " + name + ":" + String(repeating: " ", count: 20 - name.count) + value + "\n"
        }
        if let topKeys {
            text += keyTableText(topKeys, distinctKeys: scheduler.distinctKeys,
                                 distinctEstimated: scheduler.distinctKeysEstimated, estimated: topKeysEstimated)
        }
        return text
    }
}
