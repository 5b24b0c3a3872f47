// `--exec` in both modes: the entry points that put a CommandSink where
// stdout's sink would be, and what live mode's wait needs of the runner.
//
// Live mode's one wait (LiveClock.wait) watches the runner's readiness
// descriptor (its epoll set: a command exited, a stdin pipe can take more)
// and its next kill deadline along with the input and the timers; when
// either is due it returns `.commandsReady`, and the driver calls
// `commandsReady()` on the mode, which lets the runner reap, feed, kill and
// start. At the end of input (or a signal) the driver emits what is pending
// as ever; then it waits (`CommandWatch.finish`), reading no more input,
// until every command has exited: a terminating signal shuts down there (no
// new command, SIGTERM to the running ones, SIGKILL after --kill-after), a
// second signal sends SIGKILL at once, SIGUSR1 prints the summary so far and
// `--metrics` is rewritten as the commands go. Only then are `--state` and
// the last `--metrics` taken, so both hold what the commands did.

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
    /// The end of the run, before `--state` and `--metrics` take its
    /// figures: every command run and waited for, and what that did put in
    /// `report`. `look` is called at each turn of the wait (see
    /// `CommandRunner.waitUntilIdle`).
    func finish(_ report: inout RunReport, signals: RunSignals, look: () -> Nanoseconds?)
    /// `--progress`: `erase` is called before each command starts.
    func eraseBeforeStarting(_ erase: @escaping () -> Void)
    /// `--stats`' key table: `body` is told of the emitted lines never run.
    func countNotRun(_ body: @escaping (UnsafeRawBufferPointer, Int64) -> Void)
    /// Some command is running (its output may reach the terminal).
    var running: Bool { get }
    /// A write waits for its reader: signals only (a first terminating
    /// signal's SIGTERMs, the SIGKILLs due); how long until the next is due
    /// (CommandsWhileWriteWaits.swift).
    func actWhileWriteWaits(terminating: Bool) -> Nanoseconds?
}

extension CommandWatch {
    package var commandStats: CommandStats? { nil }
    package func useTimeline(_ timeline: LiveTimeline) {}
    package func finish(_ report: inout RunReport, signals: RunSignals, look: () -> Nanoseconds?) {}
    package func eraseBeforeStarting(_ erase: @escaping () -> Void) {}
    package func countNotRun(_ body: @escaping (UnsafeRawBufferPointer, Int64) -> Void) {}
    package var running: Bool { false }
    package func actWhileWriteWaits(terminating: Bool) -> Nanoseconds? { nil }
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
    func eraseBeforeStarting(_ erase: @escaping () -> Void) { runner.beforeStarting = erase }
    func countNotRun(_ body: @escaping (UnsafeRawBufferPointer, Int64) -> Void) { runner.notRunCounted = body }
    var running: Bool { !runner.children.isEmpty }
    var commandStats: CommandStats? { runner.stats }
    func actWhileWriteWaits(terminating: Bool) -> Nanoseconds? { runner.actWhileWriteWaits(terminating: terminating) }

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

    /// Every command waited for, then the runner's counters and exit
    /// status, and `--dropped`'s file written out.
    func finish(_ report: inout RunReport, signals: RunSignals, look: () -> Nanoseconds?) {
        do throws(OutputError) {
            try runner.finish(pendingSignal: signals.termination, endNow: signals.endNow, look: look)
        } catch {
            if report.end == .endOfInput { report.end(by: error, held: 0, signal: signals.termination()) }
        }
        // A SIGUSR1 that came while replay's run-on waited for a command
        // (the driver looks only between lines): answered now, late but not
        // lost.
        _ = look()
        do throws(OutputError) {
            try runner.dropped.flush()
        } catch {
            if report.end == .endOfInput { report.end(by: error, held: 0, signal: signals.termination()) }
        }
        // A second signal ended the wait at once (SIGKILL to every command):
        // pace says how many lines it did not run, 0 included (SPEC), which
        // are those the first signal left unrun.
        if signals.endNow() { report.linesNotWritten = (report.linesNotWritten ?? 0) + runner.notRunAtShutdown }
        report.commands = runner.stats
        report.commandStatus = runner.exitStatus
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

/// The driver's end of an `--exec` run: `commands` waited for, SIGUSR1
/// answered and `--metrics` rewritten at each turn of the wait (the wait
/// wakes when the watch is due).
func waitForCommands<P: Policy, Keys: KeyStore<P.State> & ~Copyable, Sink: LineSink & ~Copyable,
                     Observer: SchedulerObserver, Mode: RunMode>(
    _ commands: any CommandWatch, _ report: inout RunReport, _ scheduler: inout Scheduler<P, Keys, Sink, Observer>,
    _ input: inout LineReader, mode: inout Mode, signals: RunSignals, watch: RunWatch?
) where P.Payload == EventNumber {
    // A second signal ended the run with lines still pending (`pending`):
    // they would have been emitted and, a signal having come, not run, so
    // `--dropped` never got them; so with the lines read and not handled.
    // Here, not in the driver, whose registers the per-line loop shares
    // (+9 instructions a line there).
    if case .signal = report.end, report.linesNotWritten != nil {
        scheduler.dropped?.neverHanded(report.pending)
        if !input.givesBack { countUnhandled(&input, &report, dropped: scheduler.dropped) }
    }
    let soFar = report, clamped = mode.clamped
    commands.finish(&report, signals: signals) { () -> Nanoseconds? in
        if signals.takeStatsRequest() {
            watch?.erase()
            soFar.writeStatsSoFar(scheduler.stats, clamped: clamped, commands: commands.commandStats,
                                  topKeys: scheduler.topKeys())
        }
        guard let watch else { return nil }
        mode.tick()
        let now = watch.now(live: Mode.isLive ? mode.now : nil)
        // A failure to write the file is the last write's to report.
        guard let due = try? scheduler.show(watch, soFar, commands: commands.commandStats, live: Mode.isLive,
                                            now: mode.now) else { return nil }
        return max(.zero, due.saturatingDistance(from: now))
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
    return plan.run(&mode, &input, &sink)
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
    return runLive(configuration, clock: &clock, input: &input, output: &sink, recordFD: recordFD,
                   commands: RunnerWatch(runner, pendingSignal: signals.termination), dropped: dropped,
                   trace: trace, state: state, signals: signals)
}

/// A second signal ended an `--exec` run with lines read from a pipe (or a
/// FIFO, a terminal) not handled yet: whatever the policy would have done
/// with them, none would have run (a signal came) and each would have gone
/// to `--dropped`, which never got them. (Without `--exec`, what the policy
/// would have written of them is not known: they are in no count.) Out of
/// line: the driver's loop shares its function's registers.
@inline(never)
func countUnhandled(_ input: inout LineReader, _ report: inout RunReport, dropped: FileWriter?) {
    _ = input.endInput()
    var lines: Int64 = 0
    while input.nextBuffered() != nil { lines += 1 }
    report.linesNotWritten = (report.linesNotWritten ?? 0) + lines
    dropped?.neverHanded(lines)
}
