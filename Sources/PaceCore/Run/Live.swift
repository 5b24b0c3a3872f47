// Live mode: the same driver and scheduler as replay, driven by the monotonic
// clock. The driver sleeps in LiveClock.wait until input is readable or the
// next timer is due, so timers fire on time whether input streams or idles,
// and an idle pace with no timer set sleeps without a deadline: no CPU, no
// periodic wake-ups.
//
// One read(2), one time: every line of a read arrived together, so the batch
// shares the instant taken right after the read. Timers due at or before it
// fire first (Scheduler.send advances the clock before each event).

/// The timeline live mode acts on, and the one `--record` and `--emit-time`
/// show: the wall clock when pace started plus the monotonic time since
/// (CLOCK_BOOTTIME, which counts time suspended).
///
/// Every instant on it is floored to a whole microsecond. The record file
/// keeps microseconds, and `pace --replay --time-format record` must
/// reproduce the live output from it: acting on nanoseconds, two events
/// 299.9992 ms apart (10:00:00.0000009 and 10:00:00.3000001) would be inside a
/// 300 ms window live and exactly 300 ms apart once recorded (10:00:00.000000
/// and 10:00:00.300000), where the window's end fires before the second one.
/// Live mode therefore acts on exactly the microseconds it records. Timer
/// deadlines (event time + D) keep D's nanoseconds, as in replay.
package struct LiveTimeline: Equatable, Sendable {
    /// CLOCK_REALTIME at start (ns since the Unix epoch).
    package let wallAtStart: Instant
    /// The monotonic clock (CLOCK_BOOTTIME) at start.
    package let monotonicAtStart: Instant

    package init(wallAtStart: Instant, monotonicAtStart: Instant) {
        self.wallAtStart = wallAtStart
        self.monotonicAtStart = monotonicAtStart
    }

    /// The instant of a monotonic reading: floored to the microsecond.
    @inline(__always)
    package func instant(atMonotonic monotonic: Instant) -> Instant {
        floorToMicrosecond(wallAtStart.saturatingAdd(monotonic.saturatingDistance(from: monotonicAtStart)))
    }

    /// The earliest monotonic reading whose instant is at or after `instant`:
    /// when to wake for a timer due at `instant`. Waking at the deadline's
    /// nanosecond instead would read an instant still below a deadline that
    /// is not on a whole microsecond, and wait again for nothing.
    @inline(__always)
    package func monotonic(reaching instant: Instant) -> Instant {
        monotonicAtStart.saturatingAdd(ceilingToMicrosecond(instant).saturatingDistance(from: wallAtStart))
    }
}

private var nanosecondsPerMicrosecond: Int64 { 1_000 }

@inline(__always)
func floorToMicrosecond(_ t: Instant) -> Instant {
    let remainder = t.nanoseconds % nanosecondsPerMicrosecond
    let floor = remainder < 0 ? t.nanoseconds - remainder - nanosecondsPerMicrosecond : t.nanoseconds - remainder
    return Instant(nanoseconds: floor)
}

@inline(__always)
func ceilingToMicrosecond(_ t: Instant) -> Instant {
    let floor = floorToMicrosecond(t)
    return floor == t ? t : floor.saturatingAdd(Nanoseconds(nanosecondsPerMicrosecond))
}

// MARK: - The mode

/// Live mode: an event's time is its arrival, on `Clock`; waiting is the
/// clock's wait (until input, the next timer, a signal or stdout closing).
/// `--record` writes every line read with that time.
struct LiveMode<Clock: LiveClock>: RunMode {
    static var isLive: Bool { true }

    fileprivate(set) var clock: Clock
    let timeline: LiveTimeline
    private var record: FileWriter?
    /// `--exec`'s runner, watched in the wait.
    var commands: (any CommandWatch)?
    /// The latest instant read: the time of the last read, of a deadline, or
    /// of the end of input (or of the signal).
    private(set) var now: Instant

    init(clock: Clock, record: FileWriter?) {
        self.clock = clock
        self.record = record
        timeline = LiveTimeline(wallAtStart: self.clock.wallClockNow(), monotonicAtStart: self.clock.monotonicNow())
        now = timeline.instant(atMonotonic: timeline.monotonicAtStart)
    }

    /// Every line of a read arrived together: the batch shares the instant
    /// taken right after the read.
    @inline(__always)
    mutating func stamp(_ line: UnsafeRawBufferPointer, fields: UnsafeRawBufferPointer) throws(OutputError) -> LineStamp {
        try record?.write(line, at: now)
        return .event(now, contentStart: 0, timeField: .none)
    }

    mutating func wait(until deadline: Instant?) -> LiveWake {
        let due = deadline.map(timeline.monotonic(reaching:))
        guard let commands else { return clock.wait(until: due) }
        return clock.wait(until: due, commandFD: commands.readinessFD, commandDeadline: commands.nextDeadline)
    }

    mutating func commandsReady() throws(OutputError) { try commands?.commandsReady() }

    mutating func fill(_ input: inout LineReader, beforeWaiting: () throws(OutputError) -> Void)
        -> LineReader.Fill {
        input.fill()
    }

    mutating func tick() { now = timeline.instant(atMonotonic: clock.monotonicNow()) }

    var clamped: Int64 { 0 }

    mutating func inputEnded() { clock.stopWatchingInput() }

    mutating func caughtUp() throws(OutputError) { try record?.flush() }

    /// A record write a second signal interrupted counted the line being
    /// recorded, which went back to the input file.
    mutating func lineGivenBack() { record?.lineNotTaken() }

    mutating func unhandled(_ line: UnsafeRawBufferPointer) throws(OutputError) { try record?.write(line, at: now) }

    /// The record file still gets the lines of the last read when stdout
    /// failed first.
    mutating func complete(_ report: inout RunReport) {
        guard record != nil else { return }
        if record!.failure == nil {
            do throws(OutputError) {
                try record!.flush()
            } catch {
                if case .endOfInput = report.end, case let .failed(target, errno) = error {
                    report.end = .outputFailed(target: target, errno: errno)
                }
            }
        }
        report.countNotWritten(in: record)
    }
}

// MARK: - Entry points

/// Runs `configuration` (live mode) over `input`, writing to `outputFD`,
/// each emitted line flushed at once; `recordFD` receives `--record`'s lines.
/// `signals` says which signals came.
///
/// The executable's entry point, on the system clock. It is not generic on
/// purpose: a generic package function called from another module runs
/// unspecialised (every line went through generic metadata, and live mode
/// ran 7 times slower than replay); this one is specialised here, inside the
/// module, for the clock the executable injects.
package func runLive(_ configuration: Configuration, clock: inout SystemLiveClock, input: inout LineReader,
                    outputFD: Int32, recordFD: Int32?, droppedFD: Int32? = nil, state: StateKeeper? = nil,
                    signals: RunSignals) -> RunReport {
    runLive(configuration, onClock: &clock, input: &input, outputFD: outputFD, recordFD: recordFD,
            droppedFD: droppedFD, state: state, signals: signals)
}

/// `runLive` on any clock (tests pass a scripted one).
package func runLive<Clock: LiveClock>(_ configuration: Configuration, onClock clock: inout Clock, input: inout LineReader,
                                      outputFD: Int32, recordFD: Int32?, droppedFD: Int32? = nil,
                                      state: StateKeeper? = nil, signals: RunSignals) -> RunReport {
    if let exec = configuration.exec {
        return runLiveCommands(exec, configuration, clock: &clock, input: &input, recordFD: recordFD,
                               droppedFD: droppedFD, state: state, signals: signals)
    }
    var output = FileSink(fd: outputFD, target: "stdout", emitTime: configuration.emitTime, flushEachLine: true)
    output.countStyle = configuration.countStyle
    let report = runLive(configuration, clock: &clock, input: &input, output: &output, recordFD: recordFD,
                         droppedFD: droppedFD, state: state, signals: signals)
    return report
}

/// Live mode onto any sink (tests pass a RecordingSink). The sink must write
/// through itself. `output` is handed back with everything emitted.
/// `--trace` writes to `traceFD`; the wait watches `commands` (`--exec`).
package func runLive<Clock: LiveClock, Output: LineSink & ~Copyable>(_ configuration: Configuration, clock: inout Clock,
                                                        input: inout LineReader, output: inout Output,
                                                        recordFD: Int32?, droppedFD: Int32? = nil,
                                                        traceFD: Int32 = 2,
                                                        commands: (any CommandWatch)? = nil,
                                                        dropped: FileWriter? = nil, trace: TraceWriter? = nil,
                                                        state: StateKeeper? = nil,
                                                        signals: RunSignals) -> RunReport {
    let record = recordFD.map {
        // Named as text (main puts the file name's own bytes back).
        let target = configuration.recordPath.map { String(decoding: $0, as: UTF8.self) } ?? "record"
        return FileWriter(fd: $0, target: target, emitTime: true, flushEachLine: false)
    }
    var mode = LiveMode(clock: clock, record: record)
    mode.commands = commands
    commands?.useTimeline(mode.timeline)
    let plan = RunPlan(configuration: configuration,
                       dropped: dropped ?? droppedWriter(configuration, fd: droppedFD, live: true),
                       traceFD: traceFD, columns: 80, signals: signals, trace: trace, state: state)
    let report = plan.run(&mode, &input, &output)
    clock = mode.clock
    return report
}
