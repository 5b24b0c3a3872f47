// The one write loop, for every output: whole buffers written with write(2),
// retrying short writes and EINTR, and what a write gave up still owes.
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
