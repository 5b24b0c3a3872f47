// What watches a run from outside: `--metrics FILE` and `--progress`. The
// driver shows it the run's figures at its cold point, where it would wait
// for input (live) or read the next buffer (replay: every 256 KB of input),
// never per line; without either flag there is no watch and the driver
// only tests a nil. It paces itself by real time in both modes (SPEC: "once
// a second" is wall-clock time), and asks live mode's wait to wake it only
// while figures it has not shown yet are waiting for their turn: an idle
// pace stays idle.

/// `--metrics` and `--progress` of one run.
package final class RunWatch {
    private var metrics: MetricsFile?
    /// `--progress`, once the run has begun and only if stderr is a terminal.
    private(set) var progress: ProgressLine?
    private let wantsProgress: Bool
    private let startTime: Instant
    /// Real time for replay, whose own clock is virtual (live mode passes
    /// its clock's instant, the wall clock's timeline).
    private let realClock: () -> Instant
    /// `--exec`: the status line is not drawn while this holds (a command
    /// runs, writing to the terminal when it will).
    var hiddenWhile: (() -> Bool)?
    /// The figures of the last look, looked at again while replay waits
    /// for input (they do not change meanwhile).
    private var lastFigures: WatchFigures?

    /// `startTime`: the wall clock when pace started
    /// (`pace_start_time_seconds`); `realClock`: real time, for replay.
    package init(metricsPath: [UInt8]?, progress: Bool = false, startTime: Instant,
                 realClock: @escaping () -> Instant = realNanoseconds) {
        metrics = metricsPath.map { MetricsFile(path: $0, startTime: startTime) }
        wantsProgress = progress
        self.startTime = startTime
        self.realClock = realClock
    }

    /// The watch `configuration` asks for, or nil.
    static func wanted(by configuration: Configuration) -> RunWatch? {
        guard configuration.metricsPath != nil || configuration.progress else { return nil }
        return RunWatch(metricsPath: configuration.metricsPath, progress: configuration.progress,
                        startTime: wallClockNanoseconds())
    }

    /// The run begins, reading `inputFD`: the status line goes to stderr,
    /// if it is a terminal. `live`: live mode's time at the start, else nil.
    func begin(inputFD: Int32, live: Instant?) {
        guard wantsProgress else { return }
        progress = ProgressLine(fd: 2, stdoutFD: 1, inputFD: inputFD, startedAt: now(live: live))
    }

    /// Erases the status line before other text reaches the terminal.
    func erase() { progress?.erase() }

    /// stdout's lines go to the terminal the status line is on.
    var sharesTerminalWithStdout: Bool { progress?.sharesStdout ?? false }

    /// Real time now: live mode's instant when given, else the real clock.
    func now(live: Instant?) -> Instant { live ?? realClock() }

    /// The run's figures at a cold point of the driver, at `now`. Returns
    /// when it next wants to be shown them, if figures are waiting for
    /// their turn (live mode's wait wakes for it), or nil.
    func look(_ figures: WatchFigures, at now: Instant) throws(OutputError) -> Instant? {
        lastFigures = figures
        let metricsDue = try metrics?.look(figures, at: now)
        // Hidden: drawn at a look once the commands are done (their ends
        // wake the wait).
        if let hiddenWhile, hiddenWhile() {
            progress?.erase()
            return metricsDue
        }
        guard let progressDue = progress?.look(figures, at: now) else { return metricsDue }
        return min(metricsDue ?? progressDue, progressDue)
    }

    /// The last look's figures again, now (replay, waiting for input): how
    /// long until the watch wants to look once more, or nil.
    func lookAgain() throws(OutputError) -> Nanoseconds? {
        guard let lastFigures else { return nil }
        let now = realClock()
        return try look(lastFigures, at: now)?.saturatingDistance(from: now)
    }

    /// The run is over: the status line is erased and the last figures are
    /// written, whatever the pace.
    func finish(_ figures: WatchFigures) throws(OutputError) {
        progress?.erase()
        try metrics?.write(figures)
    }
}

/// `--metrics`' file: rewritten whole with the figures, at most once a
/// second while they change.
private struct MetricsFile {
    let path: [UInt8]
    let target: String
    let startTime: Instant
    private var written: WatchFigures?
    private var writtenAt: Instant?

    static let interval = Nanoseconds(1_000_000_000)

    init(path: [UInt8], startTime: Instant) {
        self.path = path
        target = String(decoding: path, as: UTF8.self)
        self.startTime = startTime
    }

    mutating func look(_ figures: WatchFigures, at now: Instant) throws(OutputError) -> Instant? {
        if figures == written { return nil }
        if let writtenAt, now < writtenAt.saturatingAdd(Self.interval) { return writtenAt.saturatingAdd(Self.interval) }
        try write(figures)
        writtenAt = now
        return nil
    }

    mutating func write(_ figures: WatchFigures) throws(OutputError) {
        try replaceFile(path, with: Array(metricsText(figures, startTime: startTime).utf8), target: target)
        written = figures
    }
}

// MARK: - The figures, from the run's counters

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable {
    /// Shows `watch` the run's figures at the driver's cold point; returns
    /// when it wants to look again (see `RunWatch.look`). Out of line, so
    /// that the driver's loop is compiled as it is without a watch.
    @inline(never)
    mutating func show(_ watch: RunWatch, _ report: RunReport, commands: CommandStats?, live: Bool,
                       now: Instant) throws(OutputError) -> Instant? {
        // stdout's lines would land on the status line: they go first.
        if watch.sharesTerminalWithStdout { try flush() }
        let figures = watchFigures(report, commands: commands, live: live, now: now)
        return try watch.look(figures, at: watch.now(live: live ? now : nil))
    }

    /// The run's figures now, read from what `--stats` reads. `now`: the
    /// mode's time (replay: the virtual time reached). Out of line, as
    /// `show` is: the driver calls it once, after its loop.
    @inline(never)
    func watchFigures(_ report: RunReport, commands: CommandStats?, live: Bool, now: Instant) -> WatchFigures {
        WatchFigures(stats, report, pending: Int64(heldEvents), commands: commands, virtualTime: live ? nil : now)
    }
}

extension RunReport {
    /// The watch's last look, at the end: a failure to write the metrics
    /// file ends a run that had ended well with its error (exit 1).
    mutating func watched(by watch: RunWatch, _ figures: WatchFigures) {
        do throws(OutputError) { try watch.finish(figures) } catch {
            guard case let .failed(target, errno) = error else { return }
            switch end {
            case .endOfInput, .brokenPipe: end = .outputFailed(target: target, errno: errno)
            case .badTime, .signal, .inputFailed, .outputFailed: break
            }
        }
    }
}
