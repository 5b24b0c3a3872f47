// Splits a file descriptor's bytes into lines without copying them: a line is
// a slice of the read buffer, valid until the next call, found with memchr.
// The buffer grows only for a line longer than itself (a 100 MB line is one
// event) and otherwise is reused for the whole stream; a buffer grown far
// past its first size is given back once the long line is consumed, so one
// huge line does not keep its memory for the rest of an endless stream.
//
// The drivers take the lines already buffered with `nextBuffered()` and
// call a fill when they run out: replay `fill(beforeWaiting:)`, which waits
// in ppoll (where signals are delivered) when nothing is there to read; live
// mode `fill()`, once its clock's wait says input is ready.

// libc: read(2), memchr and errno, through Platform's waits.
import Glibc

package struct LineReader: ~Copyable {
    package enum Fill: Equatable {
        /// New bytes arrived.
        case data
        /// End of input (read returned 0).
        case endOfInput
        /// read(2) was interrupted by a signal.
        case interrupted
        /// Nothing to read now (EAGAIN: a non-blocking descriptor, perhaps
        /// drained by someone else sharing it): wait, never give up.
        case wouldBlock
        /// read(2) failed with this errno.
        case failed(Int32)
    }

    package static let defaultCapacity = 256 * 1024

    private let fd: Int32
    /// The descriptor read (`--progress` asks how far into a file it is).
    var descriptor: Int32 { fd }
    private var buffer: UnsafeMutableRawPointer
    /// The buffer's size (internal: the tests check that it shrinks back).
    private(set) var capacity: Int
    /// The size the buffer starts with and goes back to.
    private let initialCapacity: Int
    /// Unconsumed bytes are buffer[start..<end].
    private var start = 0
    private var end = 0
    /// Where the newline search resumes (bytes before it hold no newline).
    private var scanned = 0
    private var atEnd = false
    /// A pipe, socket or terminal: read(2) could wait for a writer.
    private let canWait: Bool

    package init(fd: Int32, capacity: Int = LineReader.defaultCapacity) {
        self.fd = fd
        self.canWait = canStall(fd)
        self.capacity = max(capacity, 16)
        self.initialCapacity = self.capacity
        self.buffer = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The next complete line already in the buffer, without reading; after
    /// end of input, also the last line lacking its `\n`.
    @inline(__always)
    package mutating func nextBuffered() -> UnsafeRawBufferPointer? {
        let from = max(scanned, start)
        if from < end, let nl = memchr(buffer + from, 0x0A, end - from) {
            let lineEnd = buffer.distance(to: nl)
            let line = UnsafeRawBufferPointer(start: buffer + start, count: lineEnd - start)
            start = lineEnd + 1
            scanned = start
            return line
        }
        scanned = end
        if atEnd && start < end {
            let line = UnsafeRawBufferPointer(start: buffer + start, count: end - start)
            start = end
            return line
        }
        return nil
    }

    /// Ends input before read(2) said so (SIGINT, SIGTERM): no more reads.
    /// From a pipe or terminal, the bytes of an unfinished last line, if any,
    /// become the last line `nextBuffered()` returns, as at a real end of
    /// input. From a regular file the line goes on in the file, so it is left
    /// unread (`leaveUnread`). Returns whether a last line is left.
    package mutating func endInput() -> Bool {
        if !atEnd && !canWait {
            var lineStart = end
            while lineStart > start && buffer.load(fromByteOffset: lineStart - 1, as: UInt8.self) != 0x0A {
                lineStart -= 1
            }
            _ = giveBack(from: lineStart)
        }
        atEnd = true
        return start < end
    }

    /// Whether bytes read but not taken go back to the input when it is
    /// given up (a regular file: `leaveUnread`); from a pipe they cannot.
    package var givesBack: Bool { !canWait }

    /// Input given up before its end (a signal, stdout's reader gone): from
    /// a regular file, the bytes read but not taken go back, so that the
    /// descriptor's offset is just past the last line taken: POSIX's rule
    /// for a utility that stops before the end of a seekable input, so
    /// `{ pace ...; cat; } < file` neither cuts nor repeats a line.
    /// Returns whether the bytes read but not taken went back.
    @inline(never) @discardableResult
    package mutating func leaveUnread() -> Bool {
        !canWait && giveBack(from: start)
    }

    /// The line `nextBuffered()` returned last is not taken after all (its
    /// event never reached the policy): it is unread again, for
    /// `leaveUnread` to give back with the rest. Only before the next fill.
    @inline(never)
    package mutating func untakeLastLine() {
        var lineStart = start
        if lineStart > 0 && buffer.load(fromByteOffset: lineStart - 1, as: UInt8.self) == 0x0A { lineStart -= 1 }
        while lineStart > 0 && buffer.load(fromByteOffset: lineStart - 1, as: UInt8.self) != 0x0A { lineStart -= 1 }
        start = lineStart
        scanned = start
    }

    /// Seeks the buffer's bytes from `from` back into the file and forgets
    /// them (true); when there are none or the seek fails they stay.
    private mutating func giveBack(from: Int) -> Bool {
        guard from < end, lseek(fd, off_t(from - end), SEEK_CUR) >= 0 else { return false }
        end = from
        scanned = min(scanned, end)
        return true
    }

    /// Reads once more into the buffer, first moving the partial line to the
    /// front or growing the buffer when the partial line fills it.
    package mutating func fill() -> Fill {
        if atEnd { return .endOfInput }
        if start > 0 {
            let pending = end - start
            if pending > 0 { memmove(buffer, buffer + start, pending) }
            scanned -= start
            start = 0
            end = pending
        }
        // A buffer grown for a long line goes back to its first size once
        // that line is consumed and what is left fits easily. Lines of up
        // to a few buffers keep theirs, so a stream of them does not pay a
        // reallocation each.
        if capacity > initialCapacity * Self.keptGrowth && end <= initialCapacity / 2 {
            resize(to: initialCapacity)
        }
        if end == capacity { resize(to: capacity * 2) }
        let got = read(fd, buffer + end, capacity - end)
        if got > 0 {
            end += got
            return .data
        }
        if got == 0 {
            atEnd = true
            return .endOfInput
        }
        let error = errno
        if error == EINTR { return .interrupted }
        if error == EAGAIN || error == EWOULDBLOCK { return .wouldBlock }
        return .failed(error)
    }

    /// `fill()` that never sleeps in read(2), where SIGINT and SIGTERM are
    /// blocked (see Platform/Linux.swift): when the input can stall and has
    /// nothing to read now (a zero-timeout poll says so, or read(2) says
    /// EAGAIN on a non-blocking descriptor), it calls `beforeWaiting` (replay
    /// flushes what it has decided, and its watch looks) and waits in ppoll,
    /// where a signal ends the wait as `.interrupted`; for at most the time
    /// `beforeWaiting` returns, after which it is called again (the watch's
    /// next look). A regular file is read at once: no poll, no flush, so a
    /// batch replay still writes in large blocks.
    package mutating func fill<E: Error>(beforeWaiting: () throws(E) -> Nanoseconds?) throws(E) -> Fill {
        if atEnd { return .endOfInput }
        if canWait && !isReadableNow(fd) {
            guard try waitForInput(beforeWaiting) else { return .interrupted }
        }
        while true {
            let result = fill()
            guard result == .wouldBlock else { return result }
            // Someone else drained a shared descriptor between the poll and
            // the read: wait for the next bytes.
            guard try waitForInput(beforeWaiting) else { return .interrupted }
        }
    }

    /// Waits until the input is readable: false when a signal came.
    private func waitForInput<E: Error>(_ beforeWaiting: () throws(E) -> Nanoseconds?) throws(E) -> Bool {
        while true {
            let limit = try beforeWaiting()
            // A signal taken while `beforeWaiting` waited for stdout is the
            // driver's to see now, not once more input comes.
            if Signals.awaitsAction { return false }
            switch awaitReady(fd, events: Int16(POLLIN), timeout: limit) {
            case .ready: return true
            case .interrupted: return false
            case .timedOut: continue
            }
        }
    }

    /// How far past its first size the buffer may stay grown.
    private static var keptGrowth: Int { 4 }

    /// Moves the unconsumed bytes (at the front) into a buffer of `size`.
    private mutating func resize(to size: Int) {
        let other = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        other.copyMemory(from: buffer, byteCount: end)
        buffer.deallocate()
        buffer = other
        capacity = size
    }
}
