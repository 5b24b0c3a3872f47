// The one output path: lines (optionally prefixed with their emission time)
// gathered in a buffer and written by the write loop (WriteLoop.swift; the
// prefixes and the copy are LineBytes.swift). Replay flushes
// when the buffer is full (and before it waits for input); live mode flushes
// after every line so that the program downstream sees each line when it is
// emitted. Never `print`.

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
    /// `--progress` with stdout on its terminal: erases the status line.
    private var beforeWriting: (() -> Void)?

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
            beforeWriting?()
            try writeAll(port, UnsafeRawBufferPointer(start: buffer, count: n), target: target)
        }
    }

    package mutating func eraseBeforeWriting(_ erase: @escaping () -> Void) { beforeWriting = erase }

    /// Writes bytes longer than the buffer straight out, after everything
    /// given to the output thread.
    mutating func writeDirectly(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        try thread?.drain()
        beforeWriting?()
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
