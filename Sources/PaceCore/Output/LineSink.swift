// Where surviving lines go. The scheduler is generic over its sink so that the
// replay loop, the live loop and the tests share one code path and the
// compiler specialises it for each: the production sink buffers bytes for
// write(2), the test sink records (time, bytes) pairs.
//
// Accounting (`--count`, `--dropped`) is a capability of the sink, known at
// compile time: the scheduler keeps per-key counts only for a sink whose
// `writesCounts` is true, and hands discarded lines only to one whose
// `keepsDiscards` is; for any other sink those calls and the work to prepare
// them compile away (see Accounting.swift for the wrappers that add them).

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
public protocol LineSink: ~Copyable {
    /// `--count`: the scheduler keeps each key's discards and emits with
    /// `emit(_:at:count:)`. False unless a sink says otherwise.
    static var writesCounts: Bool { get }
    /// `--dropped`: the scheduler and the driver hand every discarded line
    /// to `discard(_:at:)`. False unless a sink says otherwise.
    static var keepsDiscards: Bool { get }
    mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError)
    /// A line with its `--count` number (the line itself plus its key's
    /// discards since the key's previous output line).
    mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, count: Int64) throws(OutputError)
    /// A line that does not reach the output, at the moment it is discarded.
    mutating func discard(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError)
    /// The same, naming the event by its number (its input line): `--exec`'s
    /// sink reports a failed command by it. Others need not implement it.
    mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber) throws(OutputError)
    /// Both: a line with its number and its `--count` number (`--exec`'s
    /// sink passes the count on as PACE_COUNT).
    mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber, count: Int64)
        throws(OutputError)
    /// Writes out what is buffered (at the end of a run).
    mutating func flush() throws(OutputError)
}

extension LineSink where Self: ~Copyable {
    public static var writesCounts: Bool { false }
    public static var keepsDiscards: Bool { false }
    /// A sink that shows no counts writes the line alone.
    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, count: Int64) throws(OutputError) {
        try emit(line, at: time)
    }
    /// A sink that keeps no discards lets them go.
    @inline(__always)
    public mutating func discard(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {}
    /// A sink that buffers nothing has nothing to write out.
    public mutating func flush() throws(OutputError) {}

    /// Most sinks do not need the event's number.
    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber) throws(OutputError) {
        try emit(line, at: time)
    }
    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber, count: Int64)
        throws(OutputError) {
        try emit(line, at: time, count: count)
    }
}

/// Identifies an event: its input line number (1-based, counting every line),
/// as replay and live mode number them; tests may number events 1, 2, 3. Policies hold these, never bytes, so they
/// stay pure values; the scheduler keeps the bytes of the pending ones.
public typealias EventNumber = Int64
