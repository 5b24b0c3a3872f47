// `--count` and `--dropped` as sink capabilities (see LineSink). Each is a
// wrapper type chosen at compile time in PolicyDispatch, so a run without
// them has a sink whose `writesCounts` and `keepsDiscards` are false, and the
// scheduler's accounting compiles away:
//
//   Counted<Base>       writes each line with its count (`--count`)
//   WithDropped<Base>   sends each discarded line to a FileWriter
//
// The FileWriter is a plain value with one owner. A sink that discards
// lines of its own (`--exec`'s "never ran") can own one instead of being
// wrapped, and write to it the same way.

import Glibc

/// `--count`: every line written with its count; a line that never met the
/// policy (`--on-bad-time pass`) counts 1.
public struct Counted<Base: LineSink & ~Copyable>: LineSink, ~Copyable {
    public var base: Base

    public init(_ base: consuming Base) { self.base = base }

    /// The wrapped sink, handed back at the end of the run.
    public consuming func take() -> Base { base }

    public static var writesCounts: Bool { true }
    public static var keepsDiscards: Bool { Base.keepsDiscards }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        try base.emit(line, at: time, count: 1)
    }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber) throws(OutputError) {
        try base.emit(line, at: time, number: number, count: 1)
    }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, count: Int64) throws(OutputError) {
        try base.emit(line, at: time, count: count)
    }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber,
                              count: Int64) throws(OutputError) {
        try base.emit(line, at: time, number: number, count: count)
    }

    @inline(__always)
    public mutating func discard(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        try base.discard(line, at: time)
    }

    public mutating func flush() throws(OutputError) { try base.flush() }
}

/// `--dropped FILE`: the lines the run discards go to `dropped`.
public struct WithDropped<Base: LineSink & ~Copyable>: LineSink, ~Copyable {
    public var base: Base
    public var dropped: FileWriter

    public init(_ base: consuming Base, dropped: FileWriter) {
        self.base = base
        self.dropped = dropped
    }

    /// The wrapped sink, handed back at the end of the run.
    public consuming func take() -> Base { base }

    public static var writesCounts: Bool { Base.writesCounts }
    public static var keepsDiscards: Bool { true }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        try base.emit(line, at: time)
    }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber) throws(OutputError) {
        try base.emit(line, at: time, number: number)
    }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, count: Int64) throws(OutputError) {
        try base.emit(line, at: time, count: count)
    }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, number: EventNumber,
                              count: Int64) throws(OutputError) {
        try base.emit(line, at: time, number: number, count: count)
    }

    @inline(__always)
    public mutating func discard(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        try dropped.write(line, at: time)
    }

    /// Both are written out whatever happens to the other (stdout's reader
    /// gone, the file full); the file's error wins, as it is a failure.
    public mutating func flush() throws(OutputError) {
        var failure: OutputError?
        do throws(OutputError) { try dropped.flush() } catch { failure = error }
        do throws(OutputError) { try base.flush() } catch { if failure == nil { failure = error } }
        if let failure { throw failure }
    }
}
