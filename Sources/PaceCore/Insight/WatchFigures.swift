// What `--metrics` and `--progress` show of a run, read at one moment, and
// `--metrics`' text: SPEC's counters and gauges in the Prometheus text
// exposition format 0.0.4, as node_exporter's textfile collector reads it.
// The figures are read from the counters `--stats` reads (the scheduler's,
// the run report's, the command runner's), so the two always agree.

/// A run's figures at one moment.
package struct WatchFigures: Equatable, Sendable {
    /// Every line read, decided or not.
    package var linesRead: Int64 = 0
    /// Written to stdout or run as a command (exempt and passed-through
    /// lines included).
    package var emitted: Int64 = 0
    /// Every line `--dropped` gets: discarded by the policy, skipped (empty
    /// in replay, or a bad time under `skip`), or never run by `--exec`.
    package var discarded: Int64 = 0
    package var badTime: Int64 = 0
    /// `--exempt`'s lines (0 until it exists).
    package var exempt: Int64 = 0
    /// Read and not yet decided: held by the policy.
    package var pending: Int64 = 0
    package var keysActive: Int64 = 0
    /// `--exec`'s commands started and failed, nil without it.
    package var commands: (started: Int64, failed: Int64)?
    /// `--resolve-after`'s episodes resolved and open, nil without it.
    package var episodes: (resolved: Int64, open: Int64)?
    /// Replay: the virtual time reached (nil live).
    package var virtualTime: Instant?

    package init() {}

    package static func == (a: WatchFigures, b: WatchFigures) -> Bool {
        a.linesRead == b.linesRead && a.emitted == b.emitted && a.discarded == b.discarded && a.badTime == b.badTime
            && a.exempt == b.exempt && a.pending == b.pending && a.keysActive == b.keysActive
            && a.commands?.started == b.commands?.started && a.commands?.failed == b.commands?.failed
            && a.episodes?.resolved == b.episodes?.resolved && a.episodes?.open == b.episodes?.open
            && a.virtualTime == b.virtualTime
    }
}

extension WatchFigures {
    /// The figures of a run so far, from what `--stats` reads. The lines
    /// the run skips are the report's (`skipped`): replay's empty lines
    /// (live, they are events), and bad-time lines under `--on-bad-time
    /// skip` (under `error` the line that ended input is read and bad-time
    /// only; a passed one is emitted).
    init(_ stats: SchedulerStats, _ report: RunReport, pending: Int64, commands: CommandStats?, virtualTime: Instant?) {
        // Resolved copies never run were never emitted, and go to no file.
        let notRun = commands?.linesNotRun ?? 0
        // An exempt line never meets the policy (not in eventsIn), and is
        // written, or run, at once (SPEC: emitted, exempt lines included).
        linesRead = stats.eventsIn + report.badTime + (report.skipsEmptyLines ? report.emptyLines : 0) + report.exempt
        emitted = stats.emitted + report.passed + report.exempt - notRun
        discarded = RunReport.discarded(stats, pending: pending, skipped: report.skipped, notRun: notRun)
        badTime = report.badTime
        exempt = report.exempt
        self.pending = pending
        // Unkeyed, the one state counts as a key once an event has come.
        keysActive = stats.eventsIn > 0 ? stats.activeKeys : 0
        self.commands = commands.map { ($0.run, $0.failed) }
        if report.reportsEpisodes { episodes = (stats.episodesResolved, stats.openEpisodes) }
        self.virtualTime = virtualTime
    }
}

// MARK: - The Prometheus text

/// `--metrics`' file: each metric's `# HELP` and `# TYPE` lines and its
/// value, no labels. `startTime`: the wall clock when pace started.
package func metricsText(_ figures: WatchFigures, startTime: Instant) -> String {
    var text = ""
    func add(_ name: String, _ kind: String, _ help: String, _ value: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind)\n\(name) \(value)\n"
    }
    add("pace_lines_read_total", "counter", "Lines read from the input.", String(figures.linesRead))
    add("pace_lines_emitted_total", "counter", "Lines written to stdout or run as a command.", String(figures.emitted))
    add("pace_lines_discarded_total", "counter", "Lines discarded (what --dropped gets).", String(figures.discarded))
    add("pace_lines_bad_time_total", "counter", "Lines whose timestamp did not parse.", String(figures.badTime))
    add("pace_lines_exempt_total", "counter", "Lines let through outside the policy by --exempt.", String(figures.exempt))
    if let commands = figures.commands {
        add("pace_commands_started_total", "counter", "Commands of --exec started.", String(commands.started))
        add("pace_commands_failed_total", "counter", "Commands of --exec that failed.", String(commands.failed))
    }
    if let episodes = figures.episodes {
        add("pace_episodes_resolved_total", "counter", "Episodes of --resolve-after resolved.", String(episodes.resolved))
    }
    add("pace_keys_active", "gauge", "Keys with policy state now.", String(figures.keysActive))
    add("pace_lines_pending", "gauge", "Lines read and not yet decided.", String(figures.pending))
    add("pace_start_time_seconds", "gauge", "When pace started, in seconds since the Unix epoch.", secondsString(startTime))
    if let episodes = figures.episodes {
        add("pace_episodes_open", "gauge", "Episodes of --resolve-after open now.", String(episodes.open))
    }
    return text
}
