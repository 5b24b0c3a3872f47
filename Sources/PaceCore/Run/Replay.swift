// Replay: time comes from each line's timestamp, on a virtual clock that never
// runs backwards. Waiting for input is a blocking read, and end of input runs
// the clock on until every timer has fired. Everything else is the driver's.

/// Replay's mode: timestamps in, the virtual clock out.
struct ReplayMode: RunMode {
    static var isLive: Bool { false }

    private var timestamps: TimestampReader
    private var clock = VirtualClock()
    /// The walks that find several values of a line at once: the time's
    /// walk may find the key and `--exempt`'s field (LineWalk.swift).
    let walks: LineWalks?
    /// `--exec`'s runner, for SIGUSR1's summary (replay waits in the sink).
    var commands: (any CommandWatch)?
    /// `--progress`, `--metrics`: looked at again while replay waits for
    /// input, which it waits for until the watch's next look at most.
    var watch: RunWatch?

    init(_ configuration: Configuration, defaultYear: Int) {
        let walks = LineWalks(configuration, timed: true)
        self.walks = walks
        timestamps = TimestampReader(format: configuration.timeFormat, field: configuration.timeField,
                                     delimiter: configuration.delimiter, defaultYear: configuration.year ?? defaultYear,
                                     walk: walks.time)
    }

    @inline(__always)
    mutating func stamp(_ line: UnsafeRawBufferPointer, fields: UnsafeRawBufferPointer) -> LineStamp {
        switch timestamps.read(fields) {
        case let .time(stamp, contentStart):
            return .event(clock.observe(stamp), contentStart: contentStart, timeField: timestamps.timeField)
        case let .bad(why):
            return .bad(why)
        }
    }

    var now: Instant { clock.now }

    /// The read that follows waits for input itself (see `fill`).
    mutating func wait(until deadline: Instant?) -> LiveWake { .inputReady }

    mutating func fill(_ input: inout LineReader, beforeWaiting: () throws(OutputError) -> Void) throws(OutputError)
        -> LineReader.Fill {
        let watch = self.watch
        return try input.fill(beforeWaiting: { () throws(OutputError) -> Nanoseconds? in
            try beforeWaiting()
            return try watch?.lookAgain()
        })
    }

    mutating func tick() {}

    mutating func watched(by watch: RunWatch) { self.watch = watch }

    var clamped: Int64 { clock.clamped }

    mutating func inputEnded() {}

    mutating func caughtUp() {}

    mutating func complete(_ report: inout RunReport) { report.clamped = clock.clamped }
}

/// Runs `configuration` (replay mode) over `input`, writing to `outputFD`.
/// `signals` says which signals came.
/// `--trace` writes to `traceFD`; `--marbles` draws `columns` wide.
/// `droppedFD` receives `--dropped`'s lines. A pipe as `outputFD` is made to
/// hold `pipeCapacity` bytes if it holds fewer (see OutputPipe; 0: leave it).
package func runReplay(_ configuration: Configuration, defaultYear: Int, input: inout LineReader,
                      outputFD: Int32, droppedFD: Int32? = nil, traceFD: Int32 = 2, columns: Int = 80,
                      pipeCapacity: Int = OutputPipe.wantedCapacity, signals: RunSignals) -> RunReport {
    if let exec = configuration.exec {
        return runReplayCommands(exec, configuration, defaultYear: defaultYear, input: &input, droppedFD: droppedFD,
                                 traceFD: traceFD, columns: columns, signals: signals)
    }
    // Into a pipe, the copy into its pages goes to a thread of its own,
    // unless pace writes into that pipe from elsewhere too (`2>&1`, a
    // `--dropped /dev/stdout`): a line the thread had half written would
    // have a message or a dropped line in its middle.
    let pipe = OutputPipe.enlarge(outputFD, to: pipeCapacity) != nil
    let shared = [2, traceFD, droppedFD ?? -1].contains { $0 >= 0 && sameFile($0, outputFD) }
    var sink = FileSink(fd: outputFD, target: "stdout", emitTime: configuration.emitTime, flushEachLine: false,
                        threaded: pipe && !shared)
    sink.countStyle = configuration.countStyle
    let report = runReplay(configuration, defaultYear: defaultYear, input: &input, sink: &sink, droppedFD: droppedFD,
                           traceFD: traceFD, columns: columns, signals: signals)
    return report
}

/// Replay onto any sink (tests pass a RecordingSink); `sink` is handed back
/// with everything emitted.
package func runReplay<Sink: LineSink & ~Copyable>(_ configuration: Configuration, defaultYear: Int,
                                                  input: inout LineReader, sink: inout Sink, droppedFD: Int32? = nil,
                                                  traceFD: Int32 = 2, columns: Int = 80,
                                                  signals: RunSignals) -> RunReport {
    var mode = ReplayMode(configuration, defaultYear: defaultYear)
    let plan = RunPlan(configuration: configuration,
                       dropped: droppedWriter(configuration, fd: droppedFD, live: false),
                       traceFD: traceFD, columns: columns, signals: signals)
    return plan.run(&mode, &input, &sink)
}
