// Signals while a write waits for a reader that has stopped reading (SPEC: a
// signal is acted on promptly even then). A first SIGINT or SIGTERM shuts
// `--exec`'s commands down at once, and their SIGKILLs go when due
// (Commands/CommandsWhileWriteWaits.swift). SIGUSR1 gets the summary: the
// write waits inside the scheduler's own call, where the counters cannot be
// read; so the driver copies them here each time it has handled a buffer of
// input (not each line), and the write's wait (Platform's `WriteWait`) asks
// for the summary of that copy.

/// What a waiting write does: `--exec`'s signals, and the run's summary as
/// the driver last copied it, between two buffers of input.
final class WriteWaitSummary {
    private let signals: RunSignals
    private let watch: RunWatch?
    /// `--exec`'s commands, if any.
    private let runner: (any CommandWatch)?
    private var report = RunReport()
    private var stats = SchedulerStats()
    private var clamped: Int64 = 0
    private var commands: CommandStats?
    private var pending: Int64 = 0
    /// The summary is being written (and its write waits): the commands'
    /// signals go on meanwhile, a second summary does not start.
    private var summarizing = false

    init(signals: RunSignals, watch: RunWatch?, runner: (any CommandWatch)?) {
        self.signals = signals
        self.watch = watch
        self.runner = runner
    }

    /// Copies the counters of this moment. Out of line, called once a
    /// buffer of input: the driver's loop keeps its registers.
    @inline(never)
    func capture(_ report: RunReport, _ stats: SchedulerStats, clamped: Int64, commands: CommandStats?,
                 pending: Int) {
        self.report = report
        self.stats = stats
        self.clamped = clamped
        self.commands = commands
        self.pending = Int64(pending)
    }

    /// A write to `fd` waits, before its first sleep or woken: the
    /// commands' signals first; then a SIGUSR1 is answered from the copy,
    /// unless stderr is that pipe (the summary would come between the bytes
    /// of a line), where it waits its turn. Returns how long the write may
    /// sleep before the next SIGKILL is due.
    func answer(waitingOn fd: Int32) -> Nanoseconds? {
        let delay = runner?.actWhileWriteWaits(terminating: signals.termination() != 0)
        guard !summarizing, !sameFile(2, fd), signals.takeStatsRequest() else { return delay }
        summarizing = true
        defer { summarizing = false }
        watch?.erase()
        // The per-key table is sorted when asked for, from the scheduler:
        // it comes with the next summary.
        report.writeStatsSoFar(stats, clamped: clamped, commands: commands, topKeys: nil, pending: pending)
        var note = "pace: (a write is waiting for its reader: these are the figures of the last input read)\n"
        note.withUTF8 { try? writeAll(fd: 2, UnsafeRawBufferPointer($0), target: "stderr") }
        return delay
    }
}
