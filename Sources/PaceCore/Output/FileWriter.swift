// The output files other than stdout: `--record` and `--dropped`. Each is a
// FileSink whose failures name the file, and for which a FIFO whose reader
// left is an error (EPIPE), not the quiet end a closed stdout is.

// libc: EPIPE, to name a FIFO whose reader left.
import Glibc

/// `--record`'s or `--dropped`'s file. A class: it owns its (noncopyable)
/// sink, and the run holds the one reference to it.
package final class FileWriter {
    private var sink: FileSink
    private let target: String
    /// The error that ended writing, so the error path does not retry it.
    package private(set) var failure: OutputError?
    /// The lines a second SIGINT or SIGTERM kept out of the file (the
    /// message's count; the error itself counts what stdout did not get).
    package private(set) var linesNotWritten: Int64 = 0
    /// A second signal gave up a write: what the file is still handed is
    /// counted, not written. A flag of its own: matching `failure`'s case
    /// on every line cost 45 instructions a discarded line (its payload's
    /// copy).
    private var gaveUp = false
    /// Whether `linesNotWritten` counts the line whose write gave up (a
    /// write, not a flush, was interrupted: that line was not stored).
    private var countsLineWritten = false
    /// The file's name, for the message.
    package var name: String { target }

    /// - Parameters:
    ///   - target: the file's name, for messages.
    ///   - emitTime: prefix each line with its time and a TAB (always for
    ///     `--record`; with `--emit-time`, the discard time, for `--dropped`).
    ///   - flushEachLine: write each line through (`--dropped` in live mode;
    ///     the record file is written per read instead).
    package init(fd: Int32, target: String, emitTime: Bool, flushEachLine: Bool) {
        sink = FileSink(fd: fd, target: target, emitTime: emitTime, flushEachLine: flushEachLine)
        self.target = target
    }

    @inline(__always)
    package func write(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        // After a second signal gave up a write, a line is not written but
        // counted: buffered, it would never be written out, and written, it
        // would give up again (the run carries on its discards meanwhile).
        if gaveUp {
            linesNotWritten += 1
            return
        }
        do throws(OutputError) { try sink.write(line, at: time) } catch {
            if case .interrupted = error { countsLineWritten = true }
            throw fail(error)
        }
    }

    /// `lines` that would have come here were never handed over: a second
    /// signal ended pace while they were still pending (`--exec`'s lines
    /// not run go here).
    package func neverHanded(_ lines: Int64) {
        if gaveUp { linesNotWritten += lines }
    }

    /// The line whose write gave up was not taken after all (it went back to
    /// the input file): the file never owed it.
    package func lineNotTaken() {
        if countsLineWritten && linesNotWritten > 0 { linesNotWritten -= 1 }
        countsLineWritten = false
    }

    package func flush() throws(OutputError) {
        guard failure == nil else { return }
        do throws(OutputError) { try sink.flush() } catch { throw fail(error) }
    }

    private func fail(_ error: OutputError) -> OutputError {
        let named: OutputError
        switch error {
        case .brokenPipe: named = .failed(target: target, errno: EPIPE)
        case .failed: named = error
        // The error's count is what stdout did not get; this file's is kept,
        // over every write that gave up.
        case let .interrupted(lines):
            linesNotWritten += lines
            gaveUp = true
            named = .interrupted(linesNotWritten: 0)
        }
        failure = named
        return named
    }
}
