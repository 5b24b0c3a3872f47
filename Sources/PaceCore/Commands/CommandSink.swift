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
package struct DroppedLines: LineSink {
    package let writer: FileWriter?
    package init(_ writer: FileWriter?) { self.writer = writer }
    package mutating func emit(_ emission: Emission) throws(OutputError) {
        try writer?.write(emission.line, at: emission.time)
    }
    package func flush() throws(OutputError) { try writer?.flush() }
}

package struct CommandSink<Dropped: LineSink>: LineSink {
    package let runner: CommandRunner<Dropped>
    /// `--key-field`, to show an emitted line's key.
    private let keys: KeyExtractor
    /// Replay: each line's command is waited for before `emit` returns.
    private let waitsForEach: Bool
    /// The terminating signal received (0: none), as the executable's handler
    /// sets it.
    private let pendingSignal: () -> Int32
    /// A second signal came: every command gets SIGKILL at once.
    private let endNow: () -> Bool
    /// `--batch`: the lines of the batch going out before its last, each
    /// followed by `\n`, and the sum of their counts: a batch is one
    /// command, submitted with its last line.
    private var gathered: [UInt8] = []
    private var gatheredLines = 0
    private var gatheredCount: Int64 = 0

    package init(runner: CommandRunner<Dropped>, keys: KeyExtractor, waitsForEach: Bool = true,
                pendingSignal: @escaping () -> Int32, endNow: @escaping () -> Bool = { false }) {
        self.runner = runner
        self.keys = keys
        self.waitsForEach = waitsForEach
        self.pendingSignal = pendingSignal
        self.endNow = endNow
    }

    /// Runs the line's command (replay: and waits for it). After a signal,
    /// the lines still emitted (pending ones) are not run. PACE_COUNT is
    /// what `--count` would print (the runner adds what it discarded
    /// itself): the run always counts for a command sink.
    package static var readsKeys: Bool { true }

    package mutating func emit(_ emission: Emission) throws(OutputError) {
        if !runner.isShutDown && pendingSignal() != 0 {
            do throws(OutputError) { try runner.shutdown(at: emission.time) } catch {
                // A second signal gave up shutdown's writes: the line in
                // hand (with its batch's lines gathered so far) is not run
                // either, and counted so. A resolved copy is not an input
                // line: like the episodes the run no longer resolves, it is
                // left out, and the message counts input lines only.
                if emission.mark != .resolved {
                    try? submit(emission, batchSize: emission.batchSize > 0 ? Int32(gatheredLines + 1) : 0)
                }
                throw error
            }
        }
        guard emission.endsBatch else {
            gathered.append(contentsOf: emission.line)
            gathered.append(0x0A)
            gatheredLines += 1
            gatheredCount += emission.count
            return
        }
        try submit(emission, batchSize: emission.batchSize)
        if waitsForEach { try runner.waitUntilIdle(pendingSignal: pendingSignal, endNow: endNow) }
    }

    /// The line (a batch's last, its lines before it gathered) to the runner.
    private mutating func submit(_ emission: Emission, batchSize: Int32) throws(OutputError) {
        defer {
            gathered.removeAll(keepingCapacity: true)
            gatheredLines = 0
            gatheredCount = 0
        }
        // The queue keeps the key as the scheduler does, so that keys that
        // look alike (`a b` + `c`, `a` + `b c`) keep commands of their own;
        // PACE_KEY shows it: one field's bytes as they are, the values of
        // several joined by one space.
        let key = Array(emission.key)
        let shown = keys.shown(key)
        try runner.submit(line: emission.line, key: emission.key, shownKey: shown == key ? nil : shown,
                          time: emission.time, count: emission.count + gatheredCount, lineNumber: emission.number,
                          mark: emission.mark, kept: emission.slot == Emission.outsidePolicy,
                          before: gathered, batchSize: batchSize)
    }

    /// `--state`: the keys' counts for lines never run, and with
    /// `includingWaiting` for the lines waiting to run.
    package func forEachOwedByCommands(includingWaiting: Bool, _ body: (UnsafeRawBufferPointer, Int64) -> Void) {
        runner.queue.forEachOwed(includingWaiting: includingWaiting) { key, count in
            key.withUnsafeBytes { body($0, count) }
        }
    }

}
