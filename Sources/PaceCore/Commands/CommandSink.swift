// `--exec` as a LineSink: where stdout's FileSink would write an emitted line,
// this hands it to the CommandRunner. It is a sink of its own (not a mode of
// FileSink) so that any driver that writes to a LineSink can run commands
// instead, unchanged.
//
// Replay's way (SPEC: commands run one at a time in output order, each waited
// for before pace goes on): `emit` submits the line and waits until its
// command has exited. A live driver would submit only, and watch the runner's
// `readinessFD` in its wait.

/// Discards what it is given: `--dropped`'s place until that flag exists.
public struct NoDroppedLines: LineSink {
    public init() {}
    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {}
}

public struct CommandSink<Dropped: LineSink>: LineSink {
    public let runner: CommandRunner<Dropped>
    /// `--key-field` (0: no key), to find an emitted line's key again.
    private let keyField: Int
    /// SIGINT/SIGTERM received (0: none), as the executable's handler sets it.
    private let pendingSignal: () -> Int32

    public init(runner: CommandRunner<Dropped>, keyField: Int, pendingSignal: @escaping () -> Int32) {
        self.runner = runner
        self.keyField = keyField
        self.pendingSignal = pendingSignal
    }

    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        preconditionFailure("CommandSink: a line without its number (call emit(_:at:number:))")
    }

    /// Runs the line's command and waits for it. After a signal, the lines
    /// still emitted (pending ones) are not run.
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber) throws(OutputError) {
        if !runner.isShutDown && pendingSignal() != 0 { try runner.shutdown(at: time) }
        var key = UnsafeRawBufferPointer(start: nil, count: 0)
        if keyField > 0 { key = UnsafeRawBufferPointer(rebasing: line[fieldRange(line, field: keyField)]) }
        // PACE_COUNT is 1 until --count's accounting reaches the sinks: the
        // runner adds what it discarded itself, which replay never does.
        try runner.submit(line: line, key: key, time: time, count: 1, lineNumber: number)
        try runner.waitUntilIdle(pendingSignal: pendingSignal)
    }

    /// End of the run: every command run and waited for.
    public mutating func flush() throws(OutputError) {
        try runner.finish(pendingSignal: pendingSignal)
    }
}
