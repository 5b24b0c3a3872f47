// `--exec` in both modes: the entry points that put a CommandSink where
// stdout's sink would be, and what live mode's wait needs of the runner.
//
// Live mode's one wait (LiveClock.wait) watches the runner's readiness
// descriptor (its epoll set: a command exited, a stdin pipe can take more)
// and its next kill deadline along with the input and the timers; when
// either is due it returns `.commandsReady`, and the driver calls
// `commandsReady()` on the mode, which lets the runner reap, feed, kill and
// start. At the end of input (or a signal) the driver emits what is pending
// as ever; then the entry point waits, reading no more input, until every
// command has exited: a terminating signal shuts down there (no new command,
// SIGTERM to the running ones, SIGKILL after --kill-after), a second signal
// sends SIGKILL at once, and SIGUSR1 prints the summary so far.

/// What live mode's wait watches of `--exec`'s runner.
package protocol CommandWatch: AnyObject {
    /// Readable when the runner has something to do.
    var readinessFD: Int32 { get }
    /// When a kill is due, on the live clock's monotonic clock.
    var nextDeadline: Instant? { get }
    /// The descriptor was readable, or the deadline came.
    func commandsReady() throws(OutputError)
    /// The counters so far (SIGUSR1's summary).
    var commandStats: CommandStats? { get }
    /// Live mode's timeline, on which the lines a signal discards are timed.
    func useTimeline(_ timeline: LiveTimeline)
}

extension CommandWatch {
    package var commandStats: CommandStats? { nil }
    package func useTimeline(_ timeline: LiveTimeline) {}
}

/// The runner, with how to learn of a signal before reaping.
final class RunnerWatch<Dropped: LineSink>: CommandWatch {
    let runner: CommandRunner<Dropped>
    private let pendingSignal: () -> Int32

    init(_ runner: CommandRunner<Dropped>, pendingSignal: @escaping () -> Int32) {
        self.runner = runner
        self.pendingSignal = pendingSignal
    }

    var readinessFD: Int32 { runner.readinessFD }
    var nextDeadline: Instant? { runner.nextDeadline }
    var commandStats: CommandStats? { runner.stats }

    func useTimeline(_ timeline: LiveTimeline) {
        // The runner's clock is the timeline's monotonic one (CLOCK_BOOTTIME).
        let clock = runner.clock
        runner.timelineNow = { timeline.instant(atMonotonic: clock()) }
    }

    func commandsReady() throws(OutputError) {
        // A signal sent to pace and its commands alike (`kill 0`; the
        // terminal's Ctrl-C no longer is, commands being in groups of
        // their own): shut down before reaping, so that a command it
        // killed is not a failure.
        if !runner.isShutDown && pendingSignal() != 0 { try runner.shutdown() }
        try runner.handleReady()
    }
}

extension RunMode {
    /// Replay waits for each command inside its sink: nothing to do here.
    mutating func commandsReady() throws(OutputError) {}
}

extension LiveMode {
    var commandStats: CommandStats? { commands?.commandStats }
}

extension ReplayMode {
    var commandStats: CommandStats? { commands?.commandStats }
}

extension RunReport {
    /// The end of an `--exec` run: every command waited for, then the
    /// runner's counters and exit status, and `--dropped`'s file written out.
    mutating func finishCommands(_ counted: inout Counted<CommandSink<DroppedLines>>, signals: RunSignals) {
        // The driver is done: a SIGUSR1 while the last commands run gets
        // its final counters, with the commands' so far.
        let soFar = self, runner = counted.base.runner
        let answer = {
            guard signals.takeStatsRequest() else { return }
            soFar.writeStatsSoFar(soFar.scheduler, clamped: soFar.clamped, commands: runner.stats,
                                  topKeys: soFar.topKeys)
        }
        do throws(OutputError) {
            try counted.base.finish(answerStatsRequest: answer)
        } catch {
            if end == .endOfInput { end(by: error, held: 0, signal: signals.termination()) }
        }
        // One that came while replay's run-on waited for a command (the
        // driver looks only between lines): answered now, late but not lost.
        answer()
        do throws(OutputError) {
            try runner.dropped.flush()
        } catch {
            if end == .endOfInput { end(by: error, held: 0, signal: signals.termination()) }
        }
        // A second signal ended the wait at once (SIGKILL to every command):
        // pace says how many lines it did not run, 0 included (SPEC), which
        // are those the first signal left unrun.
        if signals.endNow() { linesNotWritten = (linesNotWritten ?? 0) + runner.notRunAtShutdown }
        commands = runner.stats
        commandStatus = runner.exitStatus
    }
}

/// Replay with `--exec`: one command at a time, in output order, whatever
/// `--jobs` and `--on-busy` say. The policy's discards and the lines never
/// run share one `--dropped` writer (it buffers: one buffer keeps the order).
func runReplayCommands(_ exec: CommandOptions, _ configuration: Configuration, defaultYear: Int,
                       input: inout LineReader, droppedFD: Int32?, traceFD: Int32, columns: Int,
                       signals: RunSignals) -> RunReport {
    let dropped = droppedWriter(configuration, fd: droppedFD, live: false)
    let trace = traceWriter(configuration, fd: traceFD)
    let runner = CommandRunner(CommandOptions(command: exec.command, killAfter: exec.killAfter),
                               dropped: DroppedLines(dropped), trace: trace)
    var sink = Counted(CommandSink(runner: runner,
                                   keys: KeyExtractor(configuration.keyField, delimiter: configuration.delimiter),
                                   pendingSignal: signals.termination, endNow: signals.endNow), for: configuration)
    var mode = ReplayMode(configuration, defaultYear: defaultYear)
    mode.commands = RunnerWatch(runner, pendingSignal: signals.termination)
    let plan = RunPlan(configuration: configuration, dropped: dropped, traceFD: traceFD, columns: columns,
                       signals: signals, trace: trace)
    var report = plan.run(&mode, &input, &sink)
    report.finishCommands(&sink, signals: signals)
    return report
}

/// Live mode with `--exec`: the commands run while input is read, at most
/// `--jobs` at once, one per key.
func runLiveCommands<Clock: LiveClock>(_ exec: CommandOptions, _ configuration: Configuration,
                                       clock: inout Clock, input: inout LineReader, recordFD: Int32?,
                                       droppedFD: Int32?, state: StateKeeper? = nil, signals: RunSignals) -> RunReport {
    // One `--dropped` writer for the policy's discards and the lines
    // never run, as in replay.
    let dropped = droppedWriter(configuration, fd: droppedFD, live: true)
    let trace = traceWriter(configuration, fd: 2)
    let runner = CommandRunner(exec, dropped: DroppedLines(dropped), trace: trace)
    var sink = Counted(CommandSink(runner: runner,
                                   keys: KeyExtractor(configuration.keyField, delimiter: configuration.delimiter),
                                   waitsForEach: false, pendingSignal: signals.termination, endNow: signals.endNow),
                   for: configuration)
    var report = runLive(configuration, clock: &clock, input: &input, output: &sink, recordFD: recordFD,
                         commands: RunnerWatch(runner, pendingSignal: signals.termination), dropped: dropped,
                         trace: trace, state: state, signals: signals)
    report.finishCommands(&sink, signals: signals)
    return report
}
