// From a Configuration to a specialised run: the one place where the policy
// the command line chose becomes a reducer, and where what shapes the hot
// path becomes a type parameter: whether events are keyed (the key store),
// whether lines are counted (the counting layer wraps the sink, and carries
// `--then-every` and `--resolve-after` as run-time fields) and whether
// anything watches the run (the observer). The one `--dropped` writer is
// chosen at run time and handed to the scheduler as a value. Every mode and
// the tests come through here, so a new policy is one case in this switch
// (and one in PolicyChoice, and its reducer).

/// What a run is told of signals: the one source the driver, the report and
/// `--exec`'s runner ask, injected where `main` builds the run (`process`),
/// and scripted by the tests. (Only the write primitive's wait, in
/// Platform/, asks the handlers itself whether a second signal ends it.)
package struct RunSignals {
    /// The number of a terminating signal received (SIGINT, SIGTERM, ...: `Signals.terminating`), or 0.
    package var termination: () -> Int32
    /// A second one came: pace ends at once.
    package var endNow: () -> Bool
    /// Whether a SIGUSR1 came since the last call (the call takes it).
    package var takeStatsRequest: () -> Bool
    /// Whether a write's wait, which the process's signals interrupt, asks
    /// the run for SIGUSR1's summary (`WriteWait`).
    package var reachWrites: Bool

    package init(termination: @escaping () -> Int32, endNow: @escaping () -> Bool = { false },
                 takeStatsRequest: @escaping () -> Bool = { false }, reachWrites: Bool = false) {
        self.termination = termination
        self.endNow = endNow
        self.takeStatsRequest = takeStatsRequest
        self.reachWrites = reachWrites
    }

    /// The process's own signals, as its handlers (Platform/) record them.
    package static var process: RunSignals {
        RunSignals(termination: Signals.pendingTermination, endNow: { Signals.endNow },
                   takeStatsRequest: Signals.takeStatsRequest, reachWrites: true)
    }

    /// No signal ever comes.
    package static var none: RunSignals { RunSignals(termination: { 0 }) }
}

/// A run's parts that do not depend on the mode: the configuration, the
/// `--dropped` writer (one, shared with `--exec`'s runner, so that one
/// buffer keeps the order lines were discarded in), where `--trace` goes and
/// how wide `--marbles` draws.
struct RunPlan {
    let configuration: Configuration
    let dropped: FileWriter?
    /// `--trace`'s one writer (`--exec`'s runner writes to it too).
    let trace: TraceWriter?
    let columns: Int
    let signals: RunSignals
    /// `--state`'s keeper (live only).
    let state: StateKeeper?
    /// `--metrics` and `--progress`, if either is given.
    let watch: RunWatch?

    /// `trace`: the writer `--exec`'s runner shares; without one, the plan
    /// makes its own onto `traceFD` when `--trace` is given.
    init(configuration: Configuration, dropped: FileWriter?, traceFD: Int32, columns: Int, signals: RunSignals,
         trace: TraceWriter? = nil, state: StateKeeper? = nil, watch: RunWatch? = nil) {
        self.state = state
        self.configuration = configuration
        self.dropped = dropped
        self.trace = trace ?? traceWriter(configuration, fd: traceFD)
        self.columns = columns
        self.signals = signals
        self.watch = watch ?? RunWatch.wanted(by: configuration)
        // The trace erases the status line before it writes (see ProgressLine).
        if let trace = self.trace, let watch = self.watch { trace.beforeWriting = { [unowned watch] in watch.erase() } }
    }

    /// Runs the plan in `mode` over `input` onto `sink`, which is handed
    /// back with everything emitted.
    func run<Mode: RunMode, Sink: LineSink & ~Copyable>(_ mode: inout Mode, _ input: inout LineReader,
                                                        _ sink: inout Sink) -> RunReport {
        watch?.begin(inputFD: input.descriptor, live: Mode.isLive ? mode.now : nil)
        if let watch { mode.watched(by: watch) }
        // The status line is erased only when something else is about to
        // reach its terminal: stdout's lines, when stdout is that terminal,
        // and the commands' output (theirs is pace's).
        // While a command runs, the line is not drawn: the command writes
        // to that terminal when it will, and would write onto the line.
        if let watch, watch.progress != nil {
            if watch.sharesTerminalWithStdout { sink.eraseBeforeWriting { [unowned watch] in watch.erase() } }
            if let commands = mode.commands {
                commands.eraseBeforeStarting { [unowned watch] in watch.erase() }
                watch.hiddenWhile = { [unowned commands] in commands.running }
            }
        }
        switch configuration.policy {
        case let .debounce(window, maxWait):
            if let batch = configuration.batch {
                return keyed(BatchDebounce(window: window, maxWait: maxWait, limit: batch), &mode, &input, &sink)
            }
            return keyed(Debounce(window: window, maxWait: maxWait), &mode, &input, &sink)
        case let .leading(window):
            return keyed(Leading(window: window), &mode, &input, &sink)
        case let .leadingTrailing(window):
            return keyed(LeadingTrailing(window: window), &mode, &input, &sink)
        case let .throttle(window):
            return keyed(ThrottleFirst(window: window), &mode, &input, &sink)
        case let .throttleLast(window):
            if let batch = configuration.batch {
                return keyed(BatchThrottleLast(window: window, limit: batch), &mode, &input, &sink)
            }
            return keyed(ThrottleLast(window: window), &mode, &input, &sink)
        case let .limit(rate):
            return keyed(Limit(rate: rate), &mode, &input, &sink)
        case let .rate(rate):
            return keyed(Rate(rate: rate), &mode, &input, &sink)
        }
    }

    /// One state, or one per key.
    private func keyed<P: Policy, Mode: RunMode, Sink: LineSink & ~Copyable>(
        _ policy: P, _ mode: inout Mode, _ input: inout LineReader, _ sink: inout Sink
    ) -> RunReport where P.Payload == EventNumber {
        if configuration.keyField != nil { return counted(policy, ManyKeys<P.State>.self, &mode, &input, &sink) }
        return counted(policy, OneKey<P.State>.self, &mode, &input, &sink)
    }

    /// Counted or not. `--count`, `--count-field`, `--then-every`,
    /// `--resolve-after` and `--state` all run through the counting layer
    /// (Counting.swift): the last three need what a key owes, with or
    /// without a count shown (stdout's sink then shows none, `.hidden`).
    /// Without any of them the sink is not wrapped and no count is kept. A
    /// sink that counts already (`--exec`'s, made `for:` the configuration)
    /// is run as it is.
    private func counted<P: Policy, Keys: KeyStore<P.State> & ~Copyable, Mode: RunMode, Sink: LineSink & ~Copyable>(
        _ policy: P, _ keys: Keys.Type, _ mode: inout Mode, _ input: inout LineReader, _ sink: inout Sink
    ) -> RunReport where P.Payload == EventNumber {
        let wanted = configuration.counts || state != nil || configuration.thenEvery != nil
            || configuration.resolveAfter != nil
        guard wanted && !Sink.counts else { return watched(policy, keys, &mode, &input, &sink) }
        var counting = Counted(consume sink, for: configuration)
        let report = watched(policy, keys, &mode, &input, &counting)
        sink = counting.take()
        return report
    }

    /// Watched (`--trace`, `--marbles`, `--stats`' keys) or not: unwatched,
    /// the scheduler makes no observer calls at all.
    /// Then runs the scheduler; the observer's results are read into the report
    /// while the scheduler still owns it. (Copied out of the scheduler
    /// before `takeSink` consumed it, the observer was destroyed before the
    /// copy was taken in optimised builds of Swift 6.3: `--trace` past
    /// 64 KB and `--marbles` crashed at exit.)
    private func watched<P: Policy, Keys: KeyStore<P.State> & ~Copyable, Mode: RunMode, Sink: LineSink & ~Copyable>(
        _ policy: P, _ keys: Keys.Type, _ mode: inout Mode, _ input: inout LineReader, _ sink: inout Sink
    ) -> RunReport where P.Payload == EventNumber {
        guard let insight = RunInsight.wanted(by: configuration, trace: trace) else {
            return drive(policy, keys, NoObserver(), &mode, &input, &sink)
        }
        if insight.countsKeys { mode.commands?.countNotRun { key, lines in insight.notRun(key, lines: lines) } }
        return drive(policy, keys, insight, &mode, &input, &sink)
    }

    private func drive<P: Policy, Keys: KeyStore<P.State> & ~Copyable, O: SchedulerObserver, Mode: RunMode,
                       Sink: LineSink & ~Copyable>(
        _ policy: P, _ keys: Keys.Type, _ observer: O, _ mode: inout Mode, _ input: inout LineReader,
        _ sink: inout Sink
    ) -> RunReport where P.Payload == EventNumber {
        var scheduler = Scheduler(policy: policy, keys: keys, sink: consume sink, observer: observer, dropped: dropped,
                                  resolveAfter: Sink.marksEpisodes ? configuration.resolveAfter : nil)
        // The summary's rows, known before the run: SIGUSR1's has them too.
        var summary = RunReport()
        if case .rate = configuration.policy { summary.reportsBacklog = true }
        summary.counted = configuration.counts
        summary.reportsBatches = configuration.batch != nil
        summary.reportsEpisodes = configuration.resolveAfter != nil
        summary.reportsExempt = configuration.exempt != nil
        summary.reportsThenEvery = configuration.thenEvery != nil
        summary.distinctKeysUncounted = configuration.keyField != nil && !configuration.stats
        // What the run skips (`--dropped` gets it): `--stats`' dropped and
        // the watch's discarded read it from the report.
        summary.skipsEmptyLines = configuration.replay
        summary.skipsBadTime = configuration.onBadTime == .skip
        // Values found in one walk of the line (LineWalk.swift).
        let walks = mode.walks ?? LineWalks(configuration, timed: false)
        let exempt = configuration.exempt.map {
            ExemptionMatcher($0, delimiter: configuration.delimiter, walked: walks.exemptValue,
                             key: configuration.keyField)
        }
        state?.load(into: &scheduler, at: mode.now)
        let keys = KeyExtractor(configuration.keyField, delimiter: configuration.delimiter, walked: walks.keyValue,
                                walking: walks.key)
        var report = PaceCore.drive(&scheduler, &input, mode: &mode, keys: keys,
                                    onBadTime: configuration.onBadTime, summary: summary, signals: signals,
                                    state: state, watch: watch, exempt: exempt)
        scheduler.reportInsight(into: &report, columns: columns)
        sink = scheduler.takeSink()
        return report
    }
}

/// `--trace`'s writer onto `fd`, when `--trace` is given. With `--exec` it
/// writes each line at once, since the commands' output falls between.
func traceWriter(_ configuration: Configuration, fd: Int32) -> TraceWriter? {
    configuration.trace ? TraceWriter(fd: fd, flushesEachLine: configuration.exec != nil) : nil
}

/// `--dropped`'s writer onto `fd`, if there is one; named as text (main puts
/// the file name's own bytes back). Live mode writes each line through.
func droppedWriter(_ configuration: Configuration, fd: Int32?, live: Bool) -> FileWriter? {
    guard let fd else { return nil }
    let target = configuration.droppedPath.map { String(decoding: $0, as: UTF8.self) } ?? "dropped"
    return FileWriter(fd: fd, target: target, emitTime: configuration.emitTime, flushEachLine: live)
}
