// Live mode's clock: what time it is, and a way to sleep until input is
// readable, a deadline comes, or a signal arrives. The live loop sees only the
// LiveClock protocol, so its logic runs in unit tests on a scripted clock that
// never sleeps; SystemLiveClock is the real one, built once by the executable.
//
// The real wait is ppoll(2): a nanosecond timeout (poll's milliseconds would
// have to be rounded up, making every timer up to 1 ms late) and a signal mask
// swapped in atomically for the wait, so SIGINT and SIGTERM can stay blocked
// everywhere else and a signal arriving just before the wait is delivered in
// it instead of being noticed only at the next line (the race between
// checking a flag and blocking, closed).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a wait ended.
public enum LiveWake: Equatable, Sendable {
    /// The input is readable: data, end of input, or an error that read(2)
    /// will report.
    case inputReady
    /// The deadline came.
    case deadline
    /// A signal interrupted the wait (the loop asks which one).
    case interrupted
    /// stdout's reader went away (a pipe with no reader left): pace can
    /// stop at once instead of at its next write.
    case outputClosed
}

/// The clock live mode runs on.
public protocol LiveClock {
    /// The wall clock (CLOCK_REALTIME), nanoseconds since the Unix epoch. Read
    /// once, at start, to anchor the recorded timeline.
    mutating func wallClockNow() -> Instant
    /// The monotonic clock (CLOCK_MONOTONIC), nanoseconds since an arbitrary
    /// origin: the clock events are timed on.
    mutating func monotonicNow() -> Instant
    /// Blocks until the input is readable, the monotonic clock reaches
    /// `deadline` (never, if nil), a signal arrives, or stdout's reader goes
    /// away. Never returns `.deadline` before the deadline.
    mutating func wait(until deadline: Instant?) -> LiveWake
}

// MARK: - The system clock

/// ppoll(2), found at run time: Swift's Glibc module leaves it out (poll.h
/// declares it only under _GNU_SOURCE), and glibc has exported it since 2.4.
/// Calling it through a `@convention(c)` pointer keeps the C calling
/// convention, which a `@_silgen_name` declaration would not guarantee.
private typealias PPoll = @convention(c) (
    UnsafeMutablePointer<pollfd>?, nfds_t, UnsafePointer<timespec>?, UnsafePointer<sigset_t>?
) -> Int32

private let ppollFunction: PPoll = {
    guard let symbol = dlsym(nil, "ppoll") else { preconditionFailure("SystemLiveClock: libc has no ppoll") }
    return unsafeBitCast(symbol, to: PPoll.self)
}()

/// The real clock: clock_gettime(2) and ppoll(2) on the input and stdout.
///
/// It keeps the signals it defers (SIGINT, SIGTERM) blocked except inside
/// its wait. Building one blocks them; their handlers (installed by the
/// executable) then run only while pace waits, or at the check after a wait
/// that ended for another reason.
public struct SystemLiveClock: LiveClock {
    private let inputFD: Int32
    /// stdout, watched for its reader going away; -1 once ppoll said the
    /// descriptor is not open (it would say so on every call: a spin).
    private var outputFD: Int32
    private var deferred = sigset_t()
    /// The signal mask during a wait: the one before, minus the deferred.
    private var waitMask = sigset_t()

    /// - Parameters:
    ///   - inputFD: the descriptor lines are read from.
    ///   - outputFD: stdout; a pipe whose reader has gone reports POLLERR
    ///     without being asked, so it is polled for no event at all.
    ///   - deferredSignals: signals to deliver only inside the wait.
    public init(inputFD: Int32, outputFD: Int32, deferredSignals: [Int32]) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        sigemptyset(&deferred)
        for signal in deferredSignals { sigaddset(&deferred, signal) }
        pthread_sigmask(SIG_BLOCK, &deferred, &waitMask)
        for signal in deferredSignals { sigdelset(&waitMask, signal) }
        Self.requestExactTimers()
    }

    /// Linux lets the timer of an ordinary thread expire up to 50 µs late
    /// (its timer slack) so that wake-ups can be batched. pace's timers are
    /// its output, so it asks for 1 ns instead: measured by Scripts/bench-live,
    /// this takes about 50 µs off every delayed line. Best effort: an older
    /// kernel without the file keeps the default.
    private static func requestExactTimers() {
        let fd = open("/proc/self/timerslack_ns", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = write(fd, "1", 1)
        close(fd)
    }

    public func wallClockNow() -> Instant { read(CLOCK_REALTIME) }

    public func monotonicNow() -> Instant { read(CLOCK_MONOTONIC) }

    private func read(_ clock: clockid_t) -> Instant {
        var now = timespec()
        clock_gettime(clock, &now)
        return Instant(nanoseconds: Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec))
    }

    public mutating func wait(until deadline: Instant?) -> LiveWake {
        var fds = (pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: outputFD, events: 0, revents: 0))
        var timeout = timespec()
        if let deadline {
            // Relative to a reading taken just now: the wait can only end
            // later than the deadline, never earlier, so no wake-up is wasted.
            let remaining = max(0, deadline.saturatingDistance(from: monotonicNow()).count)
            timeout.tv_sec = Int(remaining / 1_000_000_000)
            timeout.tv_nsec = Int(remaining % 1_000_000_000)
        }
        let ready = withUnsafeMutableBytes(of: &fds) { raw in
            withUnsafePointer(to: &waitMask) { mask in
                withUnsafePointer(to: &timeout) { timeout in
                    ppollFunction(raw.baseAddress!.assumingMemoryBound(to: pollfd.self), 2,
                                  deadline == nil ? nil : timeout, mask)
                }
            }
        }
        if ready < 0 {
            // EINTR is a signal. Anything else (ENOMEM) is reported as input
            // being ready: the read that follows either works or reports a
            // real error, and the loop never spins on a failing ppoll.
            return errno == EINTR ? .interrupted : .inputReady
        }
        // ppoll delivers a pending signal only when it has nothing else to
        // report: with input always ready (a steady stream) or the deadline
        // already passed, a SIGINT would stay pending for good.
        if deliverPendingSignals() { return .interrupted }
        if ready == 0 { return .deadline }
        let output = Int32(fds.1.revents)
        if output & Int32(POLLNVAL) != 0 { outputFD = -1 }
        if output & (Int32(POLLERR) | Int32(POLLHUP)) != 0 { return .outputClosed }
        if fds.0.revents != 0 { return .inputReady }
        // Only the POLLNVAL on stdout: wait again, without watching it.
        return deadline.map { monotonicNow() >= $0 } == true ? .deadline : wait(until: deadline)
    }

    /// Runs the handlers of deferred signals that are pending, by unblocking
    /// them for a moment; true if there were any.
    private mutating func deliverPendingSignals() -> Bool {
        var pending = sigset_t()
        sigpending(&pending)
        var any = false
        for signal in 1..<Int32(32) where sigismember(&deferred, signal) == 1 && sigismember(&pending, signal) == 1 {
            any = true
        }
        guard any else { return false }
        // The kernel delivers them on the way out of this call.
        pthread_sigmask(SIG_UNBLOCK, &deferred, nil)
        pthread_sigmask(SIG_BLOCK, &deferred, nil)
        return true
    }
}
