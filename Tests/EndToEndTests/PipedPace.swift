// A running pace on pipes the test owns: it can make them non-blocking, size
// them, leave stdout unread so that pace's writes block, close either end,
// and send signals. Tests synchronise on what they can observe (a line on a
// pipe, a pipe that has filled, a signal no longer pending), never on sleeps;
// the timeouts below only turn a hang into a failure.

import Foundation
import Glibc
import Testing

/// fcntl's F_SETPIPE_SZ (Linux), which the Glibc module leaves out.
private let setPipeSize: Int32 = 1031

final class PipedPace: @unchecked Sendable {
    let process = Process()
    /// The test's ends: -1 once closed.
    private(set) var input: Int32 = -1
    private(set) var output: Int32 = -1
    private(set) var errors: Int32 = -1
    private var received: [Int32: [UInt8]] = [:]

    struct Options {
        var nonBlockingStdout = false
        var nonBlockingStdin = false
        /// F_SETPIPE_SZ for stdout's pipe (64 KiB is Linux's default).
        var stdoutPipeSize: Int32 = 65536
        var stdinPipeSize: Int32 = 65536
        /// Written into stdin before pace starts (fits stdinPipeSize).
        var prefill: [UInt8] = []
        /// Close stdin once prefilled: pace reads the prefill, then end of input.
        var closeStdin = false
        /// Start pace through `sh -c` with SIGINT ignored (`trap '' INT`).
        var ignoreSIGINT = false
        /// Let replay enlarge stdout's pipe (OutputPipe). Off by default: the
        /// tests size the pipe themselves (`stdoutPipeSize`) and fill it, so
        /// pace runs with `PACE_PIPE_SIZE=0`, which leaves the pipe as it is.
        var sizesPipe = false
        /// Start pace through this command (a path, then its arguments; pace's
        /// path and arguments follow), which must exec pace so that `pid` is
        /// pace's: `env --ignore-signal=CHLD`, `setpriv --reuid=...`.
        var launcher: [String] = []
        /// pace's stdin is this descriptor (a file the test opened, whose
        /// offset the test shares) instead of a pipe.
        var stdinFile: Int32? = nil
        /// pace's stdout is this descriptor (a file the test opened) instead
        /// of a pipe: `finish` then reads no output.
        var stdoutFile: Int32? = nil
    }

    init(_ arguments: [String], _ options: Options = Options()) throws {
        // A write to a pace that has exited must fail, not kill the tests.
        signal(SIGPIPE, SIG_IGN)
        // Close-on-exec, so that no test's pipe stays open in another's pace.
        func makePipe(size: Int32) -> (read: Int32, write: Int32) {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0)
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(fds[1], setPipeSize, size)
            return (fds[0], fds[1])
        }
        let stdin = makePipe(size: options.stdinPipeSize)
        let stdout = makePipe(size: options.stdoutPipeSize)
        let stderr = makePipe(size: 65536)
        if options.nonBlockingStdin { _ = fcntl(stdin.read, F_SETFL, fcntl(stdin.read, F_GETFL) | O_NONBLOCK) }
        if options.nonBlockingStdout { _ = fcntl(stdout.write, F_SETFL, fcntl(stdout.write, F_GETFL) | O_NONBLOCK) }
        input = options.stdinFile == nil ? stdin.write : -1
        if options.stdinFile != nil { close(stdin.write) }
        output = options.stdoutFile == nil ? stdout.read : -1
        if options.stdoutFile != nil { close(stdout.read) }
        errors = stderr.read
        write(options.prefill)
        if options.closeStdin { closeInput() }

        if options.ignoreSIGINT {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' INT; exec \"$0\" \"$@\"", Pace.binary.path] + arguments
        } else if let launcher = options.launcher.first {
            process.executableURL = URL(fileURLWithPath: launcher)
            process.arguments = options.launcher.dropFirst() + [Pace.binary.path] + arguments
        } else {
            process.executableURL = Pace.binary
            process.arguments = arguments
        }
        if !options.sizesPipe {
            process.environment = ProcessInfo.processInfo.environment.merging(["PACE_PIPE_SIZE": "0"]) { $1 }
        }
        process.standardInput = FileHandle(fileDescriptor: options.stdinFile ?? stdin.read, closeOnDealloc: false)
        process.standardOutput = FileHandle(fileDescriptor: options.stdoutFile ?? stdout.write, closeOnDealloc: false)
        process.standardError = FileHandle(fileDescriptor: stderr.write, closeOnDealloc: false)
        try process.run()
        close(stdin.read)
        close(stdout.write)
        close(stderr.write)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for fd in [input, output, errors] where fd >= 0 { close(fd) }
    }

    var pid: pid_t { process.processIdentifier }

    /// Writes all of `bytes` to pace's stdin (blocking).
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
            precondition(n > 0, "writing pace's stdin failed")
            offset += n
        }
    }

    func write(_ text: String) { write(Array(text.utf8)) }

    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// Closes stdout's reading end: pace's reader goes away.
    func closeOutput() {
        if output >= 0 { close(output) }
        output = -1
    }

    /// The next whole line on stdout (or stderr), waiting up to `timeout`
    /// seconds; nil if none came or the stream ended.
    func readLine(stderr: Bool = false, timeout: Double = 10) -> String? {
        let fd = stderr ? errors : output
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = received[fd, default: []].firstIndex(of: 0x0A) {
                let line = String(decoding: received[fd]![..<newline], as: UTF8.self)
                received[fd]!.removeSubrange(...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, Int32((left * 1000).rounded(.up))) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return nil }
            received[fd, default: []] += chunk[..<n]
        }
    }

    /// Reads `fd` to its end, in reads of at most `chunk` bytes, until
    /// `deadline` at the latest.
    private func readToEnd(_ fd: Int32, chunk: Int, deadline: Date) -> [UInt8] {
        var all = received[fd, default: []]
        received[fd] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return all }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, Int32((left * 1000).rounded(.up))) <= 0 { continue }
            let n = read(fd, &buffer, chunk)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return all }
            all += buffer[..<n]
        }
    }

    /// Bytes waiting in stdout's pipe.
    var bytesInOutput: Int32 { Self.bytesWaiting(in: output) }

    /// Bytes waiting in the pipe or FIFO `fd` reads.
    static func bytesWaiting(in fd: Int32) -> Int32 {
        var count: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &count)
        return count
    }

    /// Waits until pace is blocked writing: stdout's pipe holds at least
    /// `bytes` (`reader`: the test's end of another pipe pace writes; a full pipe holds a little less than its size when writes
    /// do not fill whole pages) and pace sleeps in poll (/proc/PID/wchan),
    /// waiting for the pipe to take more. Returns the bytes in the pipe.
    func waitUntilBlockedWriting(holding bytes: Int32 = 60_000, to reader: Int32? = nil,
                                 timeout: Double = 10) -> Int32? {
        let fd = reader ?? output
        let blocked = waitFor(timeout: timeout) {
            guard Self.bytesWaiting(in: fd) >= bytes else { return false }
            guard let wchan = try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8), wchan != "0" else {
                return true  // the kernel does not say: the pipe filling is all there is
            }
            return wchan.contains("poll")
        }
        return blocked ? Self.bytesWaiting(in: fd) : nil
    }

    /// Waits until pace's main thread sleeps (state S in
    /// /proc/PID/task/PID/stat): replay from a file sleeps only when it
    /// waits for stdout (a full pipe, all the output thread's buffers
    /// taken), where /proc/PID/wchan may not say so.
    func waitUntilAsleep(timeout: Double = 10) -> Bool {
        waitFor(timeout: timeout) {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].split(separator: " ").first == "S"
        }
    }

    /// Waits until pace has read everything written to its stdin (the pipe
    /// is empty). With its signals blocked outside its waits, a signal sent
    /// after this is handled once the lines read are.
    func waitUntilInputDrained(timeout: Double = 10) -> Bool {
        waitFor(timeout: timeout) {
            var count: Int32 = 0
            return ioctl(input, UInt(FIONREAD), &count) == 0 && count == 0
        }
    }

    /// Sends `signal` and waits until pace has taken it (it is no longer
    /// pending in /proc/PID/status), so that a second one is not merged
    /// into it.
    func send(_ signal: Int32, timeout: Double = 10) -> Bool {
        kill(pid, signal)
        return waitFor(timeout: timeout) { !isPending(signal) }
    }

    private func isPending(_ signal: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        for line in status.split(separator: "\n") where line.hasPrefix("SigPnd:") || line.hasPrefix("ShdPnd:") {
            if let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16), mask & (1 << (signal - 1)) != 0 {
                return true
            }
        }
        return false
    }

    /// Checks `condition` every millisecond until it holds or `timeout` passes.
    private func waitFor(timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() >= deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// Waits up to `timeout` seconds for pace to exit (SIGKILL after that,
    /// and nil); then the rest of stdout (read in `chunk`-byte reads, as a
    /// slow reader would) and stderr.
    func finish(timeout: Double = 20, chunk: Int = 65536, closingInput: Bool = true)
        -> (output: [UInt8], errors: String, status: Int32?) {
        if closingInput { closeInput() }
        let deadline = Date().addingTimeInterval(timeout)
        let rest = output >= 0 ? readToEnd(output, chunk: chunk, deadline: deadline) : []
        let errorText = String(decoding: readToEnd(errors, chunk: 65536, deadline: deadline), as: UTF8.self)
        let exited = waitFor(timeout: max(0.5, deadline.timeIntervalSinceNow)) { !process.isRunning }
        if !exited { kill(pid, SIGKILL) }
        process.waitUntilExit()
        return (rest, errorText, exited ? process.terminationStatus : nil)
    }
}

/// Checks `condition` every millisecond until it holds, for `timeout`
/// seconds at most: a readiness signal (a file's content, a metric) that
/// the test waits for, not a sleep.
func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        usleep(1000)
    }
    return true
}
