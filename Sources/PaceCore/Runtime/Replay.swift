// Replay: the hot loop. Read a line (a slice of the read buffer), parse its
// timestamp, move the virtual clock, find its key, reduce, write. Nothing in
// it allocates per line, and a line the policy holds back is not even
// copied: the scheduler keeps the slice, and copies what it still holds only
// when the reader is about to reuse its buffer.

/// Runs `configuration` (replay mode) over `input`, writing to `outputFD`.
/// `pendingSignal` returns the number of a SIGINT/SIGTERM received, or 0.
/// `--trace` writes to `traceFD`; `--marbles` draws `columns` wide.
public func runReplay(_ configuration: Configuration, defaultYear: Int, input: inout LineReader,
                      outputFD: Int32, traceFD: Int32 = 2, columns: Int = 80,
                      pendingSignal: () -> Int32) -> RunReport {
    let window = configuration.window
    let insight = RunInsight.wanted(by: configuration, traceFD: traceFD)
    switch configuration.policy {
    case .debounce:
        return replayLoop(Debounce(window: window, maxWait: configuration.maxWait), insight, configuration, defaultYear, &input, outputFD, columns, pendingSignal)
    case .leading:
        return replayLoop(Leading(window: window), insight, configuration, defaultYear, &input, outputFD, columns, pendingSignal)
    case .throttleFirst:
        return replayLoop(ThrottleFirst(window: window), insight, configuration, defaultYear, &input, outputFD, columns, pendingSignal)
    case .throttleLast:
        return replayLoop(ThrottleLast(window: window), insight, configuration, defaultYear, &input, outputFD, columns, pendingSignal)
    }
}

/// The loop, specialised for watching (`--trace`, `--marbles`, per-key
/// stats) or not: unwatched, it makes no observer calls at all.
private func replayLoop<P: Policy>(_ policy: P, _ insight: RunInsight?, _ configuration: Configuration,
                                   _ defaultYear: Int, _ input: inout LineReader, _ outputFD: Int32,
                                   _ columns: Int, _ pendingSignal: () -> Int32) -> RunReport
where P.Payload == EventNumber {
    // `--exec`: commands instead of stdout.
    guard let exec = configuration.exec else {
        let sink = FileSink(fd: outputFD, target: "stdout", emitTime: configuration.emitTime, flushEachLine: false)
        return replayLoop(policy, insight, configuration, defaultYear, &input, sink, columns, pendingSignal)
    }
    return withoutActuallyEscaping(pendingSignal) { pendingSignal in
        // Replay runs one command at a time whatever --jobs and --on-busy say.
        let runner = CommandRunner(CommandOptions(command: exec.command, killAfter: exec.killAfter),
                                   dropped: NoDroppedLines())
        let sink = CommandSink(runner: runner, keyField: configuration.keyField ?? 0, pendingSignal: pendingSignal)
        var report = replayLoop(policy, insight, configuration, defaultYear, &input, sink, columns, pendingSignal)
        report.commands = runner.stats
        report.commandStatus = runner.exitStatus
        return report
    }
}

private func replayLoop<P: Policy, S: ReplayOutput>(_ policy: P, _ insight: RunInsight?, _ configuration: Configuration,
                                                    _ defaultYear: Int, _ input: inout LineReader, _ sink: S,
                                                    _ columns: Int, _ pendingSignal: () -> Int32) -> RunReport
where P.Payload == EventNumber {
    guard let insight else {
        return replayLoop(policy, NoObserver(), configuration, defaultYear, &input, sink, pendingSignal).report
    }
    var (report, watched) = replayLoop(policy, insight, configuration, defaultYear, &input, sink, pendingSignal)
    watched.flush()
    report.topKeys = watched.topKeys()
    report.marbles = watched.marbles?.render(width: columns)
    return report
}

private func replayLoop<P: Policy, O: SchedulerObserver, S: ReplayOutput>(
    _ policy: P, _ observer: O, _ configuration: Configuration, _ defaultYear: Int,
    _ input: inout LineReader, _ sink: S, _ pendingSignal: () -> Int32
) -> (report: RunReport, observer: O) where P.Payload == EventNumber {
    var scheduler = Scheduler(policy: policy, keyed: configuration.keyField != nil, sink: sink, observer: observer,
                              countDistinctKeys: configuration.stats)
    var timestamps = TimestampReader(format: configuration.timeFormat, timeField: configuration.timeField,
                                     defaultYear: configuration.year ?? defaultYear)
    var clock = VirtualClock()
    var report = RunReport()
    let keyField = configuration.keyField ?? 0
    let onBadTime = configuration.onBadTime
    var lineNumber: Int64 = 0

    do throws(OutputError) {
        reading: while true {
            let line: UnsafeRawBufferPointer
            if let buffered = input.nextBuffered() {
                line = buffered
            } else {
                // Lines held back point into the buffer that fill() moves
                // and overwrites.
                scheduler.keepBorrowedLines()
                if O.isActive { scheduler.observer.flush() }
                // A signal that came while lines were being handled is seen
                // here, before read(2) can block on an idle pipe; one that
                // comes during the read interrupts it (no SA_RESTART).
                let signal = pendingSignal()
                if signal != 0 {
                    // Input ends here, as at end of input: an unfinished
                    // last line is still a line.
                    report.end = .signal(signal)
                    if input.endInput() { continue reading }
                    break reading
                }
                switch input.fill() {
                case .data:
                    continue reading
                case .endOfInput:
                    // The last line, if it lacks its newline.
                    guard let last = input.nextBuffered() else { break reading }
                    line = last
                case .interrupted:
                    // The check above sees the signal and ends input.
                    continue reading
                case let .failed(error):
                    report.end = .inputFailed(error)
                    break reading
                }
            }
            lineNumber += 1
            if contentLength(line) == 0 {
                report.emptyLines += 1
                if O.isActive { scheduler.observer.bypassed(lineNumber, .empty, at: clock.now) }
                continue reading
            }
            switch timestamps.read(line) {
            case let .time(stamp, contentStart):
                let t = clock.observe(stamp)
                let content = contentStart == 0 ? line : UnsafeRawBufferPointer(rebasing: line[contentStart...])
                var key = UnsafeRawBufferPointer(start: nil, count: 0)
                if keyField > 0 {
                    key = UnsafeRawBufferPointer(rebasing: content[fieldRange(content, field: keyField)])
                }
                try scheduler.send(borrowing: content, key: key, at: t, number: lineNumber)
            case let .bad(why):
                report.badTime += 1
                switch onBadTime {
                case .error:
                    report.end = .badTime(line: lineNumber, why)
                    break reading
                case .skip:
                    if O.isActive { scheduler.observer.bypassed(lineNumber, .badTimeSkipped, at: clock.now) }
                    continue reading
                case .pass:
                    report.passed += 1
                    if O.isActive { scheduler.observer.bypassed(lineNumber, .badTimePassed, at: clock.now) }
                    try scheduler.sink.emit(line, at: clock.now, number: lineNumber)
                }
            }
        }
        // End of input (or its stand-in): the virtual clock runs on until
        // every timer has fired.
        try scheduler.finish()
        try scheduler.sink.flush()
    } catch {
        switch error {
        case .brokenPipe: report.end = .brokenPipe
        case let .failed(target, errno): report.end = .outputFailed(target: target, errno: errno)
        }
    }
    scheduler.sink.close()
    report.scheduler = scheduler.stats
    report.clamped = clock.clamped
    return (report, scheduler.observer)
}

// MARK: - Where replay's lines go

/// Replay's output: stdout's FileSink, or `--exec`'s CommandSink.
protocol ReplayOutput: LineSink {
    /// Writes out (or waits for) whatever is still held: replay's end.
    mutating func flush() throws(OutputError)
    /// Frees what the output holds, after the last flush (or a failure).
    func close()
}

extension FileSink: ReplayOutput {
    func close() { release() }
}

extension CommandSink: ReplayOutput {
    func close() {}
}
