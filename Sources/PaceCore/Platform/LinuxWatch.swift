// The Linux calls behind `--metrics` and `--progress`: replacing a file
// whole (a new file renamed over it), the clocks they pace themselves by,
// the input's size and offset, and the terminal stderr is (whether it is
// one, its width, SIGWINCH).

import Glibc

/// Replaces the file at `path` with `bytes`: written to `path.<pid>.tmp`
/// beside it, then renamed over it, so a reader (node_exporter's textfile
/// collector) sees the old file or the new one, never half of one. The
/// temporary name does not end in `.prom`, which the collector skips.
/// Only a regular file (or none yet) is replaced: anything else at `path`
/// (a symbolic link, a device such as /dev/full, a FIFO) is written in
/// place, as any output file is, and never renamed over, and never waited
/// on: a FIFO that no one has open for reading, or one (or a terminal)
/// that cannot take the snapshot now, is skipped this time (the snapshot
/// goes nowhere, as it would to a reader not there; one of up to PIPE_BUF
/// bytes, as pace's are, goes into a FIFO whole or not at all).
/// Throws `.failed(target:errno:)` (a full disk, a directory gone).
func replaceFile(_ path: [UInt8], with bytes: [UInt8], target: String) throws(OutputError) {
    let final = path + [0]
    var info = stat()
    let existing = final.withUnsafeBufferPointer { name in
        name.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) }
    }
    let inPlace = existing == 0 && (info.st_mode & S_IFMT) != S_IFREG
    let temporary = inPlace ? final : replacementName(path) + [0]
    // In place, opened and written without waiting (ENXIO: a FIFO without
    // a reader; EAGAIN: a full one). Otherwise a new file: whatever is at
    // the temporary name (a link or FIFO put there) is removed, and the
    // open neither follows nor reuses anything.
    if !inPlace { _ = temporary.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { unlink($0.baseAddress!) } } }
    let flags = O_WRONLY | O_CLOEXEC | (inPlace ? O_CREAT | O_TRUNC | O_NONBLOCK : O_CREAT | O_EXCL | O_NOFOLLOW)
    let fd = temporary.withUnsafeBufferPointer { name in
        name.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, flags, 0o666) }
    }
    if fd < 0 {
        let code = errno
        if inPlace && code == ENXIO && isFIFO(final) { return }
        throw .failed(target: target, errno: code)
    }
    // Short writes and EINTR are retried. EPIPE in place is a FIFO whose
    // reader went away, EAGAIN one that is full: a snapshot skipped.
    var failure: Int32 = 0
    bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            failure = n < 0 ? errno : EIO
            return
        }
    }
    if close(fd) != 0 && failure == 0 { failure = errno }
    if inPlace {
        if failure == 0 || failure == EPIPE || failure == EAGAIN { return }
        throw .failed(target: target, errno: failure)
    }
    if failure == 0 {
        let renamed = temporary.withUnsafeBufferPointer { from in
            final.withUnsafeBufferPointer { to in
                from.withMemoryRebound(to: CChar.self) { f in to.withMemoryRebound(to: CChar.self) { rename(f.baseAddress!, $0.baseAddress!) } }
            }
        }
        if renamed == 0 { return }
        failure = errno
    }
    _ = temporary.withUnsafeBufferPointer { name in name.withMemoryRebound(to: CChar.self) { unlink($0.baseAddress!) } }
    throw .failed(target: target, errno: failure)
}

/// The new file `replaceFile` writes beside `path`.
package func replacementName(_ path: [UInt8]) -> [UInt8] { path + Array(".\(getpid()).tmp".utf8) }

/// Why `replaceFile` could not make its new file beside `path` (a regular
/// file, or none yet), or nil when it can: tried once at the start, so
/// that a name too long for it, or a directory pace may not write in, is
/// a usage error, not the first write's failure.
package func replacementProblem(_ path: [UInt8]) -> Int32? {
    var info = stat()
    if lstat(path.map { CChar(bitPattern: $0) } + [0], &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG { return nil }
    let name = replacementName(path).map { CChar(bitPattern: $0) } + [0]
    unlink(name)
    let fd = open(name, O_WRONLY | O_CLOEXEC | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666)
    if fd < 0 { return errno }
    close(fd)
    unlink(name)
    return nil
}

/// Whether `path` (NUL-terminated; a symbolic link followed) is a FIFO.
private func isFIFO(_ path: [UInt8]) -> Bool {
    var info = stat()
    let found = path.withUnsafeBufferPointer { name in
        name.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &info) }
    }
    return found == 0 && (info.st_mode & S_IFMT) == S_IFIFO
}

/// The wall clock (ns since the Unix epoch): `pace_start_time_seconds`.
package func wallClockNanoseconds() -> Instant { clockNanoseconds(CLOCK_REALTIME) }

/// Real time elapsed, for pacing the watch in replay (whose own clock is
/// virtual): the clock live mode acts on.
package func realNanoseconds() -> Instant { clockNanoseconds(liveClockID) }

/// How far into the input pace has read, and its size, when it is a
/// regular file (`--progress`' percent); nil otherwise.
func inputPosition(_ fd: Int32) -> (offset: Int64, size: Int64)? {
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    let offset = lseek(fd, 0, SEEK_CUR)
    guard offset >= 0 else { return nil }
    return (Int64(offset), Int64(info.st_size))
}

/// Whether `fd` is a terminal.
func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

/// Whether two descriptors are the same terminal (stdout and stderr: then a
/// line written to stdout must erase the status line first).
func sameTerminal(_ a: Int32, _ b: Int32) -> Bool {
    guard isTerminal(a) && isTerminal(b) else { return false }
    var first = stat(), second = stat()
    guard fstat(a, &first) == 0 && fstat(b, &second) == 0 else { return false }
    if first.st_rdev == second.st_rdev { return true }
    // `/dev/tty` is the controlling terminal under a device number of its
    // own (5,0): two descriptors that both give the session of pace's
    // controlling terminal are that terminal.
    let session = tcgetsid(a)
    return session >= 0 && tcgetsid(b) == session
}

/// The terminal's width in columns, or nil when it does not say.
func terminalWidth(_ fd: Int32) -> Int? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
}

/// SIGWINCH: the terminal was resized. A flag the status line reads when it
/// next draws; the handler does nothing else.
enum TerminalResize {
    nonisolated(unsafe) private static var resized: sig_atomic_t = 0

    static func watch() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in TerminalResize.resized = 1 }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGWINCH, &action, nil)
        Signals.unblock(SIGWINCH)
    }

    /// Whether a resize came since the last call (the call takes it).
    static func take() -> Bool {
        guard resized != 0 else { return false }
        resized = 0
        return true
    }
}
