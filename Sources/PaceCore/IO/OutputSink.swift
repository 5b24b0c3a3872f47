// The one output path: lines (optionally prefixed with their emission time)
// gathered in a buffer and written with write(2) in a loop. Replay flushes
// when the buffer is full; live mode flushes after every line so that the
// program downstream sees each line when it is emitted. Never `print`.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole buffers to a file descriptor, retrying short writes and
/// EINTR; EPIPE becomes `.brokenPipe`, anything else `.failed`.
public func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer, target: String) throws(OutputError) {
    var offset = 0
    while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n >= 0 {
            offset += n
            continue
        }
        let error = errno
        if error == EINTR { continue }
        if error == EPIPE { throw .brokenPipe }
        throw .failed(target: target, errno: error)
    }
}

/// A LineSink onto a file descriptor.
///
/// It owns a raw buffer but is a plain (copyable) struct so that it can be
/// the Scheduler's generic sink; exactly one copy (the scheduler's) is used,
/// and its owner calls `release()` when done.
public struct FileSink: LineSink {
    public static let defaultCapacity = 128 * 1024

    private let fd: Int32
    /// Name for error messages (`stdout`, or the `--record` file's path).
    private let target: String
    private let buffer: UnsafeMutableRawPointer
    private let capacity: Int
    private var used = 0
    /// Prefix each line with its emission time and a TAB.
    public let emitTime: Bool
    /// Write through after every line (live mode).
    public let flushEachLine: Bool

    public init(fd: Int32, target: String, emitTime: Bool, flushEachLine: Bool, capacity: Int = FileSink.defaultCapacity) {
        self.fd = fd
        self.target = target
        self.emitTime = emitTime
        self.flushEachLine = flushEachLine
        self.capacity = max(capacity, 64)
        self.buffer = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    /// Frees the buffer (after the final `flush()`); the sink is unusable after.
    public func release() { buffer.deallocate() }

    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        if emitTime {
            if capacity - used < maxSecondsLength + 1 { try flush() }
            used += formatSeconds(time, into: buffer + used)
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        try append(line)
        if flushEachLine { try flush() }
    }

    /// `--count`: the emission time's prefix (with `--emit-time`), then the
    /// count and a TAB, then the line.
    @inline(__always)
    public mutating func emit(_ line: UnsafeRawBufferPointer, at time: Instant, count: Int64) throws(OutputError) {
        if capacity - used < maxSecondsLength + maxCountLength + 2 { try flush() }
        if emitTime {
            used += formatSeconds(time, into: buffer + used)
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        used += formatCount(count, into: buffer + used)
        buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
        used += 1
        try append(line)
        if flushEachLine { try flush() }
    }

    /// Appends raw bytes followed by `\n`.
    @inline(__always)
    public mutating func append(_ line: UnsafeRawBufferPointer) throws(OutputError) {
        if line.count + 1 <= capacity - used {
            if line.count > 0 { (buffer + used).copyMemory(from: line.baseAddress!, byteCount: line.count) }
            used += line.count
        } else {
            try flush()
            if line.count + 1 <= capacity {
                if line.count > 0 { buffer.copyMemory(from: line.baseAddress!, byteCount: line.count) }
                used = line.count
            } else {
                try writeAll(fd: fd, line, target: target)
            }
        }
        buffer.storeBytes(of: 0x0A, toByteOffset: used, as: UInt8.self)
        used += 1
    }

    public mutating func flush() throws(OutputError) {
        guard used > 0 else { return }
        let n = used
        used = 0
        try writeAll(fd: fd, UnsafeRawBufferPointer(start: buffer, count: n), target: target)
    }
}

/// The longest `formatCount` output: `9223372036854775807`.
let maxCountLength = 19

/// Writes a count (>= 0) in decimal; returns the bytes written.
@inline(__always)
func formatCount(_ count: Int64, into out: UnsafeMutableRawPointer) -> Int {
    var value = UInt64(max(count, 0))
    var length = 1
    var scale: UInt64 = 10
    while length < maxCountLength && value >= scale {
        length += 1
        scale &*= 10
    }
    var i = length
    repeat {
        i -= 1
        out.storeBytes(of: UInt8(value % 10) + UInt8(ascii: "0"), toByteOffset: i, as: UInt8.self)
        value /= 10
    } while i > 0
    return length
}

/// The longest `formatSeconds` output: `-9223372036.854775`.
let maxSecondsLength = 20

/// Writes `time` as seconds with exactly 6 decimals, truncated (floor) from
/// nanoseconds, `-` before a negative time; returns the bytes written.
@inline(__always)
public func formatSeconds(_ time: Instant, into out: UnsafeMutableRawPointer) -> Int {
    // Floor to microseconds, so -1 ns is -0.000001, not -0.000000.
    var micros = time / 1_000
    if time % 1_000 < 0 { micros -= 1 }
    var i = 0
    if micros < 0 {
        out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 0, as: UInt8.self)
        i = 1
    }
    let magnitude = micros.magnitude
    var seconds = magnitude / 1_000_000
    var fraction = magnitude % 1_000_000
    // Integer part, at least one digit.
    var digits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { raw in
        let d = raw.bindMemory(to: UInt8.self)
        repeat {
            d[count] = UInt8(seconds % 10) + UInt8(ascii: "0")
            seconds /= 10
            count += 1
        } while seconds > 0
        while count > 0 {
            count -= 1
            out.storeBytes(of: d[count], toByteOffset: i, as: UInt8.self)
            i += 1
        }
    }
    out.storeBytes(of: UInt8(ascii: "."), toByteOffset: i, as: UInt8.self)
    i += 1
    var place = 5
    while place >= 0 {
        out.storeBytes(of: UInt8(fraction % 10) + UInt8(ascii: "0"), toByteOffset: i + place, as: UInt8.self)
        fraction /= 10
        place -= 1
    }
    return i + 6
}

/// `formatSeconds` as a String, for messages and tests.
public func secondsString(_ time: Instant) -> String {
    withUnsafeTemporaryAllocation(byteCount: maxSecondsLength, alignment: 1) { raw in
        let n = formatSeconds(time, into: raw.baseAddress!)
        return String(decoding: UnsafeRawBufferPointer(start: raw.baseAddress!, count: n), as: UTF8.self)
    }
}
