// `--exec` as a LineSink: where stdout's FileSink would write an emitted line,
// this hands it to the CommandRunner. It is a sink of its own (not a mode of
// FileSink) so that the driver, which writes to a LineSink, runs commands
// instead, unchanged.
//
// - Replay (SPEC: commands run one at a time in output order, each waited for
//   before pace goes on): `emit` submits the line and waits until its
//   command has exited.
// - Live: `emit` only submits; the live wait watches the runner
//   (LiveCommands.swift), and the end of the run waits for every command.

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
    /// Replay: each line's command is waited for before `emit` returns.
    private let waitsForEach: Bool
    /// SIGINT/SIGTERM received (0: none), as the executable's handler sets it.
    private let pendingSignal: () -> Int32
    /// A second signal came: every command gets SIGKILL at once.
    private let endNow: () -> Bool

    public init(runner: CommandRunner<Dropped>, keyField: Int, waitsForEach: Bool = true,
                pendingSignal: @escaping () -> Int32, endNow: @escaping () -> Bool = { false }) {
        self.runner = runner
        self.keyField = keyField
        self.waitsForEach = waitsForEach
        self.pendingSignal = pendingSignal
        self.endNow = endNow
    }

    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        preconditionFailure("CommandSink: a line without its number (call emit(_:at:number:))")
    }

    /// Runs the line's command (replay: and waits for it). After a signal,
    /// the lines still emitted (pending ones) are not run.
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber) throws(OutputError) {
        if !runner.isShutDown && pendingSignal() != 0 { try runner.shutdown(at: time) }
        var key = UnsafeRawBufferPointer(start: nil, count: 0)
        if keyField > 0 { key = UnsafeRawBufferPointer(rebasing: line[fieldRange(line, field: keyField)]) }
        // PACE_COUNT is 1 until --count's accounting reaches the sinks: the
        // runner adds what it discarded itself.
        try runner.submit(line: line, key: key, time: time, count: 1, lineNumber: number)
        if waitsForEach { try runner.waitUntilIdle(pendingSignal: pendingSignal, endNow: endNow) }
    }

    /// End of the run: every command run and waited for (a signal shuts
    /// down first). The entry points call it after the driver is done.
    public mutating func finish() throws(OutputError) {
        try runner.finish(pendingSignal: pendingSignal, endNow: endNow)
    }
}
