// Live mode: the same Scheduler as replay, driven by the monotonic clock. The
// loop sleeps in LiveClock.wait until input is readable or the next timer is
// due, so timers fire on time whether input streams or idles, and an idle pace
// with no timer set sleeps without a deadline: no CPU, no periodic wake-ups.
//
// One read(2), one time: every line of a read arrived together, so the batch
// shares the instant taken right after the read. Timers due at or before it
// fire first (Scheduler.send advances the clock before each event).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The timeline live mode acts on, and the one `--record` and `--emit-time`
/// show: the wall clock when pace started plus the monotonic time since.
///
/// Every instant on it is floored to a whole microsecond. The record file
/// keeps microseconds, and `pace --replay --time-format record` must
/// reproduce the live output from it: acting on nanoseconds, two events
/// 299.9992 ms apart (10:00:00.0000009 and 10:00:00.3000001) would be inside a
/// 300 ms window live and exactly 300 ms apart once recorded (10:00:00.000000
/// and 10:00:00.300000), where the window's end fires before the second one.
/// Live mode therefore acts on exactly the microseconds it records. Timer
/// deadlines (event time + D) keep D's nanoseconds, as in replay.
public struct LiveTimeline: Equatable, Sendable {
    /// CLOCK_REALTIME at start (ns since the Unix epoch).
    public let wallAtStart: Instant
    /// CLOCK_MONOTONIC at start.
    public let monotonicAtStart: Instant

    public init(wallAtStart: Instant, monotonicAtStart: Instant) {
        self.wallAtStart = wallAtStart
        self.monotonicAtStart = monotonicAtStart
    }

    /// The instant of a monotonic reading: floored to the microsecond.
    @inline(__always)
    public func instant(atMonotonic monotonic: Instant) -> Instant {
        floorToMicrosecond(wallAtStart.saturatingAdd(monotonic.saturatingAdd(-monotonicAtStart)))
    }

    /// The earliest monotonic reading whose instant is at or after `instant`:
    /// when to wake for a timer due at `instant`. Waking at the deadline's
    /// nanosecond instead would read an instant still below a deadline that
    /// is not on a whole microsecond, and wait again for nothing.
    @inline(__always)
    public func monotonic(reaching instant: Instant) -> Instant {
        monotonicAtStart.saturatingAdd(ceilingToMicrosecond(instant).saturatingAdd(-wallAtStart))
    }
}

private let nanosecondsPerMicrosecond: Int64 = 1_000

@inline(__always)
func floorToMicrosecond(_ t: Instant) -> Instant {
    let remainder = t % nanosecondsPerMicrosecond
    return remainder < 0 ? t - remainder - nanosecondsPerMicrosecond : t - remainder
}

@inline(__always)
func ceilingToMicrosecond(_ t: Instant) -> Instant {
    let floor = floorToMicrosecond(t)
    return floor == t ? t : floor.saturatingAdd(nanosecondsPerMicrosecond)
}

// MARK: - Entry points

/// Runs `configuration` (live mode) over `input`, writing to `outputFD`,
/// each emitted line flushed at once; `recordFD` receives `--record`'s lines.
/// `pendingSignal` returns the number of a SIGINT/SIGTERM received, or 0.
public func runLive<Clock: LiveClock>(_ configuration: Configuration, clock: inout Clock, input: inout LineReader,
                                      outputFD: Int32, recordFD: Int32?, pendingSignal: () -> Int32) -> RunReport {
    var output = FileSink(fd: outputFD, target: "stdout", emitTime: configuration.emitTime, flushEachLine: true)
    let report = runLive(configuration, clock: &clock, input: &input, output: &output, recordFD: recordFD,
                         pendingSignal: pendingSignal)
    output.release()
    return report
}

/// Live mode onto any sink (tests pass a RecordingSink). The sink must write
/// through itself: the loop never flushes it. `output` is handed back with
/// everything emitted.
/// `--trace` writes to `traceFD`.
public func runLive<Clock: LiveClock, Output: LineSink>(_ configuration: Configuration, clock: inout Clock,
                                                        input: inout LineReader, output: inout Output,
                                                        recordFD: Int32?, traceFD: Int32 = 2,
                                                        pendingSignal: () -> Int32) -> RunReport {
    let window = configuration.window
    let insight = RunInsight.wanted(by: configuration, traceFD: traceFD)
    switch configuration.policy {
    case .debounce:
        return liveLoop(Debounce(window: window, maxWait: configuration.maxWait), insight, configuration, &clock, &input, &output, recordFD, pendingSignal)
    case .leading:
        return liveLoop(Leading(window: window), insight, configuration, &clock, &input, &output, recordFD, pendingSignal)
    case .throttleFirst:
        return liveLoop(ThrottleFirst(window: window), insight, configuration, &clock, &input, &output, recordFD, pendingSignal)
    case .throttleLast:
        return liveLoop(ThrottleLast(window: window), insight, configuration, &clock, &input, &output, recordFD, pendingSignal)
    }
}

/// The loop, watched (`--trace`, per-key stats) or not.
private func liveLoop<P: Policy, Clock: LiveClock, Output: LineSink>(
    _ policy: P, _ insight: RunInsight?, _ configuration: Configuration, _ clock: inout Clock,
    _ input: inout LineReader, _ output: inout Output, _ recordFD: Int32?, _ pendingSignal: () -> Int32
) -> RunReport where P.Payload == EventNumber {
    guard let insight else {
        return liveLoop(policy, NoObserver(), configuration, &clock, &input, &output, recordFD, pendingSignal).report
    }
    var (report, watched) = liveLoop(policy, insight, configuration, &clock, &input, &output, recordFD, pendingSignal)
    watched.flush()
    report.topKeys = watched.topKeys()
    return report
}

// MARK: - The loop

private func liveLoop<P: Policy, O: SchedulerObserver, Clock: LiveClock, Output: LineSink>(
    _ policy: P, _ observer: O, _ configuration: Configuration, _ clock: inout Clock, _ input: inout LineReader,
    _ output: inout Output, _ recordFD: Int32?, _ pendingSignal: () -> Int32
) -> (report: RunReport, observer: O) where P.Payload == EventNumber {
    var scheduler = Scheduler(policy: policy, keyed: configuration.keyField != nil, sink: output, observer: observer,
                              countDistinctKeys: configuration.stats)
    var record = recordFD.map {
        let target = configuration.recordPath ?? "record"
        return RecordWriter(FileSink(fd: $0, target: target, emitTime: true, flushEachLine: false), target: target)
    }
    let timeline = LiveTimeline(wallAtStart: clock.wallClockNow(), monotonicAtStart: clock.monotonicNow())
    var report = RunReport()
    let keys = KeyExtractor(configuration.keyField, delimiter: configuration.delimiter)
    // The latest instant read: the time of end of input (or of the signal).
    var now = timeline.instant(atMonotonic: timeline.monotonicAtStart)
    /// Lines read so far: the number of the next one, less one.
    var lineNumber: EventNumber = 0

    /// One line read: recorded, then an event at `now`.
    func take(_ line: UnsafeRawBufferPointer, number: EventNumber) throws(OutputError) {
        try record?.write(line, at: now)
        // Empty lines are events in live mode (SPEC skips them only in
        // replay); --stats counts them as empty lines too.
        if contentLength(line) == 0 { report.emptyLines += 1 }
        try scheduler.send(line, key: keys.key(of: line), at: now, number: number)
    }

    do throws(OutputError) {
        running: while true {
            // Signals are blocked outside the wait (see SystemLiveClock), so
            // one that arrives after this check interrupts the wait below.
            let signal = pendingSignal()
            if signal != 0 {
                report.end = .signal(signal)
                now = timeline.instant(atMonotonic: clock.monotonicNow())
                // Input ends here, as at end of input: an unfinished last
                // line is still a line.
                if input.endInput(), let line = input.nextBuffered() {
                    lineNumber += 1
                    try take(line, number: lineNumber)
                    try record?.flush()
                }
                break running
            }
            if O.isActive { scheduler.observer.flush() }
            let wake = clock.wait(until: scheduler.nextDeadline.map(timeline.monotonic(reaching:)))
            switch wake {
            case .interrupted:
                continue running
            case .outputClosed:
                report.end = .brokenPipe
                break running
            case .deadline:
                now = timeline.instant(atMonotonic: clock.monotonicNow())
                try scheduler.advance(to: now)
            case .inputReady:
                let fill = input.fill()
                now = timeline.instant(atMonotonic: clock.monotonicNow())
                switch fill {
                case .data, .endOfInput:
                    // After end of input this also yields a last line lacking
                    // its `\n`.
                    while let line = input.nextBuffered() {
                        lineNumber += 1
                        try take(line, number: lineNumber)
                    }
                    try record?.flush()
                    if fill == .endOfInput { break running }
                    // A read that completed no line still moves the clock.
                    try scheduler.advance(to: now)
                case .interrupted:
                    continue running
                case .failed(EAGAIN):
                    // A non-blocking descriptor someone else drained: nothing
                    // to read after all.
                    try scheduler.advance(to: now)
                case let .failed(error):
                    report.end = .inputFailed(error)
                    break running
                }
            }
        }
        // End of input, a signal or a read error: what is due fires at its
        // time, then every pending line comes out now, in the order the clock
        // would have released them. A closed stdout takes nothing more.
        if report.end != .brokenPipe {
            try scheduler.advance(to: now)
            try scheduler.finish(emittingAt: now)
        }
        try record?.flush()
    } catch {
        // stdout failed: the record file still gets the lines of the last read.
        if record?.failure == nil { try? record?.flush() }
        switch error {
        case .brokenPipe: report.end = .brokenPipe
        case let .failed(target, errno): report.end = .outputFailed(target: target, errno: errno)
        }
    }
    record?.release()
    output = scheduler.sink
    report.scheduler = scheduler.stats
    return (report, scheduler.observer)
}

/// `--record`'s writer: every line read, as `<seconds>TAB<line>`, written per
/// read batch. Its failures name the record file; a FIFO whose reader left is
/// an error too (EPIPE), not the quiet end a closed stdout is.
private struct RecordWriter {
    private var sink: FileSink
    private let target: String
    /// The error that ended recording, so the error path does not retry it.
    private(set) var failure: OutputError?

    init(_ sink: FileSink, target: String) {
        self.sink = sink
        self.target = target
    }

    @inline(__always)
    mutating func write(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        do throws(OutputError) { try sink.emit(line, at: time) } catch { throw fail(error) }
    }

    mutating func flush() throws(OutputError) {
        do throws(OutputError) { try sink.flush() } catch { throw fail(error) }
    }

    private mutating func fail(_ error: OutputError) -> OutputError {
        let named: OutputError
        switch error {
        case .brokenPipe: named = .failed(target: target, errno: EPIPE)
        case .failed: named = error
        }
        failure = named
        return named
    }

    func release() { sink.release() }
}
