// The one output path: lines (optionally prefixed with their emission time)
// gathered in a buffer and written with write(2) in a loop. Replay flushes
// when the buffer is full (and before it waits for input); live mode flushes
// after every line so that the program downstream sees each line when it is
// emitted. Never `print`.
//
// A write never sleeps in the kernel on a descriptor that can stall: EAGAIN
// (from pace's non-blocking twin of the descriptor, or from one inherited
// non-blocking) means wait in ppoll for POLLOUT, where SIGINT and SIGTERM are
// delivered (see Platform/Linux.swift). The first signal lets the write go on
// (input ends at the loop's next check); a second one ends it at once.

// libc: errno and its codes (EINTR, EAGAIN, EPIPE) and memchr.
import Glibc

/// Writes whole buffers to a file descriptor, retrying short writes and
/// EINTR and waiting on EAGAIN; EPIPE becomes `.brokenPipe`, a second
/// SIGINT/SIGTERM while waiting `.interrupted`, anything else `.failed`.
/// For messages, help and the trace. stderr goes through one port made at
/// its first use (a non-blocking twin, see OutputPort), so a trace to a
/// stalled reader waits where signals arrive; other descriptors are written
/// as they are (EAGAIN still means wait).
package func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer, target: String) throws(OutputError) {
    try writeAll(fd == 2 ? stderrPort : OutputPort(fd: fd), bytes, target: target)
}

/// stderr's port, opened once and kept for the life of the process.
private let stderrPort = OutputPort(2, twin: true)

func writeAll(_ port: OutputPort, _ bytes: UnsafeRawBufferPointer, target: String) throws(OutputError) {
    let (written, error) = writeOut(port, bytes, target: target) { awaitWritableUnlessEnded(port.fd) }
    if let error { throw error }
    // A second SIGINT or SIGTERM while waiting: the lines of what is left.
    if written < bytes.count { throw .interrupted(linesNotWritten: newlines(in: bytes, from: written)) }
}

/// The one write loop, `writeAll`'s and the output thread's: writes `bytes`
/// whole, retrying short writes and EINTR; when the port cannot take more,
/// `wait` waits until it can, or says to give up (false). Returns how much
/// was written and the error that ended it: EPIPE is `.brokenPipe`,
/// anything else `.failed`; nil with less than all written is `wait`'s
/// giving up.
func writeOut(_ port: OutputPort, _ bytes: UnsafeRawBufferPointer, target: String,
              wait: () -> Bool) -> (written: Int, error: OutputError?) {
    var offset = 0
    while offset < bytes.count {
        // A port without a twin waits only when the descriptor is full, as a
        // twin's write waits only on EAGAIN: a second signal gives up a
        // stalled write, not one the descriptor takes at once (its message).
        if port.waitsFirst && !isWritableNow(port.fd) && !wait() { return (offset, nil) }
        let n = port.write(bytes.baseAddress! + offset, bytes.count - offset)
        if n >= 0 {
            offset += n
            continue
        }
        let error = errno
        if error == EINTR { continue }
        if error == EAGAIN || error == EWOULDBLOCK {
            if !wait() { return (offset, nil) }
            continue
        }
        if error == EPIPE { return (offset, .brokenPipe) }
        return (offset, .failed(target: target, errno: error))
    }
    return (offset, nil)
}

/// The `\n`s in `bytes[offset...]`: the lines a write still owed.
func newlines(in bytes: UnsafeRawBufferPointer, from offset: Int) -> Int64 {
    var count: Int64 = 0
    var at = offset
    while at < bytes.count, let nl = memchr(bytes.baseAddress! + at, 0x0A, bytes.count - at) {
        count += 1
        at = bytes.baseAddress!.distance(to: UnsafeRawPointer(nl)) + 1
    }
    return count
}

/// A LineSink onto a file descriptor.
///
/// It owns a raw buffer (and, for a pipe or terminal, a descriptor of its
/// own), so it is noncopyable: it has exactly one owner, the scheduler that
/// writes to it, and frees both when that owner is done with it.
package struct FileSink: LineSink, ~Copyable {
    package static let defaultCapacity = 128 * 1024

    let port: OutputPort
    /// Name for error messages (`stdout`, or the `--record` file's path).
    // Not private: `--resolve-after`'s marked write (Marking.swift) and
    // `--count-field`'s (CountField.swift) fill them too.
    let target: String
    /// The buffer being filled: the sink's own, or one of its output
    /// thread's.
    var buffer: UnsafeMutableRawPointer
    let capacity: Int
    /// Replay into a pipe: the thread that writes the filled buffers
    /// (Platform/LinuxOutputThread.swift); nil: the writes are the sink's.
    private let thread: OutputThread?
    var used = 0
    /// Prefix each line with its emission time and a TAB.
    package let emitTime: Bool
    /// Write through after every line (live mode).
    package let flushEachLine: Bool
    /// How a count is shown (`--count`, `--count-field`, or not at all).
    package var countStyle = CountStyle.prefix

    /// `threaded`: write the filled buffers on a thread of their own, where
    /// one can be started (replay into a pipe; never with `flushEachLine`).
    package init(fd: Int32, target: String, emitTime: Bool, flushEachLine: Bool,
                 capacity: Int = FileSink.defaultCapacity, threaded: Bool = false) {
        let port = OutputPort(fd, twin: true)
        self.port = port
        self.target = target
        self.emitTime = emitTime
        self.flushEachLine = flushEachLine
        self.capacity = max(capacity, 64)
        thread = threaded && !flushEachLine
            ? OutputThread.start(port: port, target: target, capacity: self.capacity) : nil
        buffer = thread?.firstBuffer() ?? UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    /// Frees the buffer (a final `flush()` is its owner's to do: what the
    /// output thread was given is written out first, unless a second signal
    /// stops it) and closes the twin descriptor if there is one.
    deinit {
        if let thread { thread.finish() } else { buffer.deallocate() }
        port.close()
    }

    /// An output line: with its count's prefix when the run counts.
    @inline(__always)
    package mutating func emit(_ emission: Emission) throws(OutputError) {
        if emission.count == 0 {
            try write(emission.line, at: emission.time)
        } else {
            try write(emission.line, at: emission.time, count: emission.count, number: emission.number)
        }
    }

    /// The common case inline: a bare line that fits the buffer, in replay.
    /// Everything else (a time prefix, a full buffer, a write per line) is
    /// out of line, so that the few instructions of the copy are all a
    /// scheduler that emits most of its lines pays for each.
    @inline(__always)
    package mutating func write(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        if !emitTime && !flushEachLine && line.count < capacity &- used {
            if line.count > 0 { copyBytes(to: buffer + used, from: line.baseAddress!, count: line.count) }
            buffer.storeBytes(of: 0x0A, toByteOffset: used &+ line.count, as: UInt8.self)
            used &+= line.count &+ 1
            return
        }
        try emitSlowly(line, at: time)
    }

    @inline(never)
    private mutating func emitSlowly(_ line: UnsafeRawBufferPointer, at time: Instant) throws(OutputError) {
        if emitTime {
            if capacity - used < maxSecondsLength + 1 { try Self.beforeLine { () throws(OutputError) in try makeRoom() } }
            used += formatSeconds(time, into: buffer + used)
            buffer.storeBytes(of: 0x09, toByteOffset: used, as: UInt8.self)
            used += 1
        }
        try append(line)
        if flushEachLine { try flush() }
    }

    /// `--count`: the emission time's prefix (with `--emit-time`), then the
    /// count and a TAB, then the line. Out of line: inlined, its prefixes
    /// made `emit` (and the protocol's thunk for it) too large to be inlined
    /// into the scheduler, and every run paid a call through the thunk per
    /// line.
    @inline(never)
    private mutating func write(_ line: UnsafeRawBufferPointer, at time: Instant, count: Int64,
                                number: EventNumber) throws(OutputError) {
        guard countStyle == .prefix else {
            if case let .field(member, pair) = countStyle {
                try write(line, at: time, count: count, member: member, pair: pair, first: number == 1)
            } else {
                try emitSlowly(line, at: time)
            }
            return
        }
        if capacity - used < maxSecondsLength + maxCountLength + 2 {
            try Self.beforeLine { () throws(OutputError) in try makeRoom() }
        }
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
    package mutating func append(_ line: UnsafeRawBufferPointer) throws(OutputError) {
        if line.count + 1 <= capacity - used {
            if line.count > 0 { (buffer + used).copyMemory(from: line.baseAddress!, byteCount: line.count) }
            used += line.count
        } else {
            try Self.beforeLine { () throws(OutputError) in try makeRoom() }
            if line.count + 1 <= capacity {
                if line.count > 0 { buffer.copyMemory(from: line.baseAddress!, byteCount: line.count) }
                used = line.count
            } else {
                try Self.beforeLine { () throws(OutputError) in try writeDirectly(line) }
            }
        }
        buffer.storeBytes(of: 0x0A, toByteOffset: used, as: UInt8.self)
        used += 1
    }

    /// Writes out the buffer; with an output thread, waits until every
    /// buffer it was given is written.
    package mutating func flush() throws(OutputError) {
        try makeRoom()
        try thread?.drain()
    }

    /// Writes out the buffer, or gives it to the output thread for an empty
    /// one: room for the next line.
    mutating func makeRoom() throws(OutputError) {
        guard used > 0 else { return }
        let n = used
        used = 0
        if let thread {
            buffer = try thread.pass(buffer, count: n)
        } else {
            try writeAll(port, UnsafeRawBufferPointer(start: buffer, count: n), target: target)
        }
    }

    /// Writes bytes longer than the buffer straight out, after everything
    /// given to the output thread.
    mutating func writeDirectly(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        try thread?.drain()
        try writeAll(port, bytes, target: target)
    }

    /// A write on the way to storing a line: if it is interrupted, that line
    /// did not go out either.
    static func beforeLine(_ write: () throws(OutputError) -> Void) throws(OutputError) {
        do throws(OutputError) {
            try write()
        } catch {
            if case let .interrupted(count) = error { throw .interrupted(linesNotWritten: count + 1) }
            throw error
        }
    }
}

/// Copies `count` bytes between two regions that do not overlap. A line of
/// up to 128 bytes is copied inline, in 16-byte words (the last one
/// overlapping the one before), never reading or writing outside the two
/// regions: for lines of log size the call to memmove through the PLT cost
/// more than the copy did, and a run that writes most of its lines paid it
/// for each.
@inline(__always)
func copyBytes(to target: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count n: Int) {
    typealias Word = SIMD16<UInt8>
    if n >= 16 {
        guard n <= 128 else {
            target.copyMemory(from: source, byteCount: n)
            return
        }
        var i = 0
        while i &+ 16 < n {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: i, as: Word.self), toByteOffset: i, as: Word.self)
            i &+= 16
        }
        target.storeBytes(of: source.loadUnaligned(fromByteOffset: n &- 16, as: Word.self), toByteOffset: n &- 16,
                          as: Word.self)
    } else if n >= 8 {
        let head = source.loadUnaligned(as: UInt64.self), tail = source.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        target.storeBytes(of: head, as: UInt64.self)
        target.storeBytes(of: tail, toByteOffset: n &- 8, as: UInt64.self)
    } else if n >= 4 {
        let head = source.loadUnaligned(as: UInt32.self), tail = source.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
        target.storeBytes(of: head, as: UInt32.self)
        target.storeBytes(of: tail, toByteOffset: n &- 4, as: UInt32.self)
    } else {
        var i = 0
        while i < n {
            target.storeBytes(of: source.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self)
            i &+= 1
        }
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
package func formatSeconds(_ time: Instant, into out: UnsafeMutableRawPointer) -> Int {
    // Floor to microseconds, so -1 ns is -0.000001, not -0.000000.
    var micros = time.nanoseconds / 1_000
    if time.nanoseconds % 1_000 < 0 { micros -= 1 }
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
package func secondsString(_ time: Instant) -> String {
    withUnsafeTemporaryAllocation(byteCount: maxSecondsLength, alignment: 1) { raw in
        let n = formatSeconds(time, into: raw.baseAddress!)
        return String(decoding: UnsafeRawBufferPointer(start: raw.baseAddress!, count: n), as: UTF8.self)
    }
}
