// What a run of pace reports back to the executable: how it ended (which
// decides the exit code and message) and the counters for `--stats`.

public enum RunEnd: Equatable, Sendable {
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

public struct RunReport: Equatable, Sendable {
    public var end: RunEnd = .endOfInput
    public var scheduler = SchedulerStats()
    public var clamped: Int64 = 0
    public var badTime: Int64 = 0
    public var passed: Int64 = 0
    public var emptyLines: Int64 = 0
    /// `--stats` with `--key-field`: the keys with the most events in.
    public var topKeys: [KeyCount]?
    /// `topKeys` comes from the heavy-hitters summary (see HeavyHitters).
    public var topKeysEstimated = false
    /// `--marbles`' diagram, drawn after the run.
    public var marbles: String?
    /// `--count` was given: `--stats` shows the discards it could not count.
    public var counted = false
    public init() {}

    /// Events that entered the policy and did not come out.
    public var dropped: Int64 { scheduler.eventsIn - scheduler.emitted }

    /// `--stats`' summary for stderr.
    public var statsText: String {
        let distinct = scheduler.distinctKeysEstimated ? estimateText(scheduler.distinctKeys)
                                                       : String(scheduler.distinctKeys)
        let rows: [(String, String)] = [
            ("events in", String(scheduler.eventsIn)),
            ("emitted", String(scheduler.emitted)),
            ("dropped", String(dropped)),
            ("distinct keys", distinct),
            ("peak active keys", String(scheduler.peakActiveKeys)),
            ("clamped timestamps", String(clamped)),
            ("bad-time lines", String(badTime)),
            ("passed through", String(passed)),
            ("empty lines", String(emptyLines)),
        ] + (counted ? [("uncounted discards", String(scheduler.uncountedDiscards))] : [])
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
