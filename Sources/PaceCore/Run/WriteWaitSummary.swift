// SIGUSR1 while a write waits for a reader that has stopped reading (SPEC: a
// signal is acted on promptly even then). The write waits inside the
// scheduler's own call, where the counters cannot be read; so the driver
// copies them here each time it has handled a buffer of input (not each
// line), and the write's wait (Platform's `WriteWait`) asks for the summary
// of that copy.

/// The run's summary as the driver last copied it, between two buffers of
/// input: what SIGUSR1 shows while a write waits.
final class WriteWaitSummary {
    private let signals: RunSignals
    private let watch: RunWatch?
    private var report = RunReport()
    private var stats = SchedulerStats()
    private var clamped: Int64 = 0
    private var commands: CommandStats?
    private var pending: Int64 = 0

    init(signals: RunSignals, watch: RunWatch?) {
        self.signals = signals
        self.watch = watch
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

    /// A signal interrupted the wait of a write to `fd`: a SIGUSR1 is
    /// answered from the copy, unless stderr is that pipe (the summary
    /// would come between the bytes of a line), where it waits its turn.
    func answer(waitingOn fd: Int32) {
        guard !sameFile(2, fd), signals.takeStatsRequest() else { return }
        watch?.erase()
        // The per-key table is sorted when asked for, from the scheduler:
        // it comes with the next summary.
        report.writeStatsSoFar(stats, clamped: clamped, commands: commands, topKeys: nil, pending: pending)
        var note = "pace: (a write is waiting for its reader: these are the figures of the last input read)\n"
        note.withUTF8 { try? writeAll(fd: 2, UnsafeRawBufferPointer($0), target: "stderr") }
    }
}
