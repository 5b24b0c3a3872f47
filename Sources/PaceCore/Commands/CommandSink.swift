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

/// `--dropped`'s writer as the runner's sink for the lines it never ran
/// (none: they go nowhere). Shared with the policy's run, so that replay's
/// buffered file keeps the order the lines were discarded in.
public struct DroppedLines: LineSink {
    public let writer: FileWriter?
    public init(_ writer: FileWriter?) { self.writer = writer }
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        try writer?.write(line, at: time)
    }
    public func flush() throws(OutputError) { try writer?.flush() }
}

public struct CommandSink<Dropped: LineSink>: LineSink {
    public let runner: CommandRunner<Dropped>
    /// `--key-field`, to find an emitted line's key again (and show it).
    private let keys: KeyExtractor
    /// Replay: each line's command is waited for before `emit` returns.
    private let waitsForEach: Bool
    /// SIGINT/SIGTERM received (0: none), as the executable's handler sets it.
    private let pendingSignal: () -> Int32
    /// A second signal came: every command gets SIGKILL at once.
    private let endNow: () -> Bool

    public init(runner: CommandRunner<Dropped>, keys: KeyExtractor, waitsForEach: Bool = true,
                pendingSignal: @escaping () -> Int32, endNow: @escaping () -> Bool = { false }) {
        self.runner = runner
        self.keys = keys
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
        try emit(line, at: time, number: number, count: 1)
    }

    /// The scheduler keeps each key's discards for it: PACE_COUNT is what
    /// `--count` would print (the runner adds what it discarded itself).
    public static var writesCounts: Bool { true }

    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber, count: Int64)
        throws(OutputError) {
        if !runner.isShutDown && pendingSignal() != 0 { try runner.shutdown(at: time) }
        // The key as shown (PACE_KEY): one field's bytes as they are, the
        // values of several joined by one space.
        let shown = keys.shown(Array(keys.key(of: number == 1 ? withoutByteOrderMark(line) : line)))
        var failure: OutputError?
        shown.withUnsafeBytes { key in
            do throws(OutputError) {
                try runner.submit(line: line, key: key, time: time, count: count, lineNumber: number)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if waitsForEach { try runner.waitUntilIdle(pendingSignal: pendingSignal, endNow: endNow) }
    }

    /// End of the run: every command run and waited for (a signal shuts
    /// down first), SIGUSR1 answered by `answerStatsRequest`. The entry
    /// points call it after the driver is done.
    public mutating func finish(answerStatsRequest: () -> Void = {}) throws(OutputError) {
        try runner.finish(pendingSignal: pendingSignal, endNow: endNow, answerStatsRequest: answerStatsRequest)
    }
}
