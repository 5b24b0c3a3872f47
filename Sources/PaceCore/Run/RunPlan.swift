// From a Configuration to a specialised run: the one place where the policy
// the command line names, whether events are keyed, whether lines are counted
// or dropped ones kept (`--count`, `--dropped`: sink wrappers, see
// Accounting.swift), and whether anything watches the run turn into type
// parameters. Every mode and the tests come
// through here, so a new policy is added to one switch.

/// Runs `configuration` in `mode` over `input` onto `sink`: the policy, key
/// space and observer chosen, then the driver. `sink` is handed back with
/// everything emitted. `dropped` is `--dropped`'s writer (flushed at the
/// end).
func run<Mode: RunMode, Sink: LineSink & ~Copyable>(
    _ configuration: Configuration, mode: inout Mode, input: inout LineReader, sink: inout Sink,
    dropped: FileWriter? = nil, traceFD: Int32, columns: Int, pendingSignal: () -> Int32
) -> RunReport {
    let window = configuration.window
    var run = Run(configuration: configuration, traceFD: traceFD, columns: columns, dropped: dropped)
    switch configuration.policy {
    case .debounce:
        return run.keyed(Debounce(window: window, maxWait: configuration.maxWait), &mode, &input, &sink, pendingSignal)
    case .leading:
        return run.keyed(Leading(window: window), &mode, &input, &sink, pendingSignal)
    case .throttleFirst:
        return run.keyed(ThrottleFirst(window: window), &mode, &input, &sink, pendingSignal)
    case .throttleLast:
        return run.keyed(ThrottleLast(window: window), &mode, &input, &sink, pendingSignal)
    case .limit:
        return run.keyed(Limit(rate: configuration.cellRate!), &mode, &input, &sink, pendingSignal)
    case .rate:
        var report = run.keyed(Rate(rate: configuration.cellRate!), &mode, &input, &sink, pendingSignal)
        report.reportsBacklog = true
        return report
    }
}

/// The steps after the policy is chosen.
private struct Run {
    let configuration: Configuration
    let traceFD: Int32
    let columns: Int
    let dropped: FileWriter?

    /// One state, or one per key.
    mutating func keyed<P: Policy, Mode: RunMode, Sink: LineSink & ~Copyable>(
        _ policy: P, _ mode: inout Mode, _ input: inout LineReader, _ sink: inout Sink, _ pendingSignal: () -> Int32
    ) -> RunReport where P.Payload == EventNumber {
        if configuration.keyField != nil {
            return counted(policy, ManyKeys<P.State>.self, &mode, &input, &sink, pendingSignal)
        }
        return counted(policy, OneKey<P.State>.self, &mode, &input, &sink, pendingSignal)
    }

    /// `--count` or not: without it, the scheduler keeps no counts.
    private func counted<P: Policy, Keys: KeySpace<P.State> & ~Copyable, Mode: RunMode, Sink: LineSink & ~Copyable>(
        _ policy: P, _ keys: Keys.Type, _ mode: inout Mode, _ input: inout LineReader, _ sink: inout Sink,
        _ pendingSignal: () -> Int32
    ) -> RunReport where P.Payload == EventNumber {
        guard configuration.count else { return keepingDropped(policy, keys, &mode, &input, &sink, pendingSignal) }
        var counting = Counted(consume sink)
        var report = keepingDropped(policy, keys, &mode, &input, &counting, pendingSignal)
        sink = counting.take()
        report.counted = true
        return report
    }

    /// `--dropped` or not: without it, discarded lines are not handed on.
    private func keepingDropped<P: Policy, Keys: KeySpace<P.State> & ~Copyable, Mode: RunMode, Sink: LineSink & ~Copyable>(
        _ policy: P, _ keys: Keys.Type, _ mode: inout Mode, _ input: inout LineReader, _ sink: inout Sink,
        _ pendingSignal: () -> Int32
    ) -> RunReport where P.Payload == EventNumber {
        guard let dropped else { return watched(policy, keys, &mode, &input, &sink, pendingSignal) }
        var keeping = WithDropped(consume sink, dropped: dropped)
        let report = watched(policy, keys, &mode, &input, &keeping, pendingSignal)
        sink = keeping.take()
        return report
    }

    /// Watched (`--trace`, `--marbles`, per-key stats) or not: unwatched,
    /// the scheduler makes no observer calls at all.
    private func watched<P: Policy, Keys: KeySpace<P.State> & ~Copyable, Mode: RunMode, Sink: LineSink & ~Copyable>(
        _ policy: P, _ keys: Keys.Type, _ mode: inout Mode, _ input: inout LineReader, _ sink: inout Sink,
        _ pendingSignal: () -> Int32
    ) -> RunReport where P.Payload == EventNumber {
        guard let insight = RunInsight.wanted(by: configuration, traceFD: traceFD) else {
            return drive(policy, keys, NoObserver(), &mode, &input, &sink, pendingSignal) { _, _ in }
        }
        return drive(policy, keys, insight, &mode, &input, &sink, pendingSignal) { report, watched in
            watched.flush()
            report.topKeys = watched.topKeys()
            report.topKeysEstimated = watched.topKeysEstimated
            report.marbles = watched.marbles?.render(width: columns)
        }
    }

    /// Runs the scheduler; `results` reads the observer into the report
    /// while the scheduler still owns it. (Copied out of the scheduler
    /// before `takeSink` consumed it, the observer was destroyed before the
    /// copy was taken in optimised builds of Swift 6.3: `--trace` past
    /// 64 KB and `--marbles` crashed at exit.)
    private func drive<P: Policy, Keys: KeySpace<P.State> & ~Copyable, O: SchedulerObserver,
                       Mode: RunMode, Sink: LineSink & ~Copyable>(
        _ policy: P, _ keys: Keys.Type, _ observer: O, _ mode: inout Mode, _ input: inout LineReader,
        _ sink: inout Sink, _ pendingSignal: () -> Int32, results: (inout RunReport, inout O) -> Void
    ) -> RunReport where P.Payload == EventNumber {
        var scheduler = Scheduler(policy: policy, keys: keys, sink: consume sink, observer: observer,
                                  countDistinctKeys: configuration.stats)
        var report = PaceCore.drive(&scheduler, &input, mode: &mode, keys: KeyExtractor(configuration.keyField, delimiter: configuration.delimiter),
                                     onBadTime: configuration.onBadTime, pendingSignal: pendingSignal)
        results(&report, &scheduler.observer)
        sink = scheduler.takeSink()
        return report
    }
}
