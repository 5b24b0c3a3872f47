// Where surviving lines go. The scheduler is generic over its sink so that the
// replay loop, the live loop and the tests share one code path and the
// compiler specialises it for each: the production sink buffers bytes for
// write(2), the test sink records (time, bytes) pairs.

/// A failure to write output. `brokenPipe` is the reader having gone away
/// (`| head -1`), which pace treats as a quiet, successful end.
public enum OutputError: Error, Equatable {
    case brokenPipe
    /// errno of a failed write, with the name of what was being written.
    case failed(target: String, errno: Int32)
    /// A second SIGINT or SIGTERM came while a write waited: pace ends at
    /// once. The count is the lines of the write (and of the sink's buffer)
    /// that did not go out; a line partly written counts as not written.
    case interrupted(linesNotWritten: Int64)
}

/// Receives each line that leaves pace, with its emission time.
public protocol LineSink {
    mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError)
    /// The same, naming the event by its number (its input line): `--exec`'s
    /// sink reports a failed command by it. Others need not implement it.
    mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber) throws(OutputError)
    /// Writes out what is buffered (at the end of a run).
    mutating func flush() throws(OutputError)
}

extension LineSink {
    /// A sink that buffers nothing has nothing to write out.
    public mutating func flush() throws(OutputError) {}

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber) throws(OutputError) {
        try emit(line, at: time)
    }
}

/// Identifies an event: its input line number (1-based, counting every line),
/// as replay and live mode number them; tests may number events 1, 2, 3. Policies hold these, never bytes, so they
/// stay pure values; the scheduler keeps the bytes of the pending ones.
public typealias EventNumber = Int64
