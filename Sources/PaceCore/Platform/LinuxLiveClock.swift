// The live clock on Linux: clock_gettime(2), a timerfd on CLOCK_BOOTTIME and
// the wait of Linux.swift (platformPoll), whose signal design it relies on.

import Glibc

/// timerfd_create(2) and timerfd_settime(2), found at run time like ppoll
/// (the Glibc module does not declare them).
private typealias TimerCreate = @convention(c) (Int32, Int32) -> Int32
private typealias TimerSet = @convention(c) (Int32, Int32, UnsafePointer<itimerspec>?, UnsafeMutablePointer<itimerspec>?) -> Int32

private let timerFunctions: (create: TimerCreate, set: TimerSet)? = {
    guard let create = dlsym(nil, "timerfd_create"), let set = dlsym(nil, "timerfd_settime") else { return nil }
    return (unsafeBitCast(create, to: TimerCreate.self), unsafeBitCast(set, to: TimerSet.self))
}()

/// The real clock: clock_gettime(2) and ppoll(2) on the input and stdout.
/// The handled signals are blocked except inside its wait (see the top of
/// this file), so their handlers run while pace waits, or at the check after
/// a wait that ended for another reason.
///
/// Deadlines are kept by a timerfd on CLOCK_BOOTTIME, set to the deadline
/// itself (absolute), and polled with the input: ppoll's own timeout runs on
/// CLOCK_MONOTONIC, which stops while the machine is suspended, so a timer due
/// during a suspension would fire that much late; the timerfd fires on wake.
/// It is set again only when the deadline changes. Without timerfd (it
/// cannot be created), ppoll's timeout does the job.
package struct SystemLiveClock: LiveClock {
    /// -1 once input has ended (ppoll skips a negative descriptor).
    private var inputFD: Int32
    /// stdout, watched for its reader going away; -1 once ppoll said the
    /// descriptor is not open (it would say so on every call: a spin).
    private var outputFD: Int32
    /// The timerfd, or -1.
    private let timerFD: Int32
    /// The deadline the timerfd is set to (nil: disarmed, or it has fired).
    private var armed: Instant?

    /// - Parameters:
    ///   - inputFD: the descriptor lines are read from.
    ///   - outputFD: stdout; a pipe whose reader has gone reports POLLERR
    ///     without being asked, so it is polled for no event at all.
    package init(inputFD: Int32, outputFD: Int32) {
        self.inputFD = inputFD
        self.outputFD = outputFD
        timerFD = timerFunctions?.create(liveClockID, O_NONBLOCK | O_CLOEXEC) ?? -1
        requestExactTimers()
    }

    package func wallClockNow() -> Instant { clockNanoseconds(CLOCK_REALTIME) }

    package func monotonicNow() -> Instant { clockNanoseconds(liveClockID) }

    /// Sets the timerfd to fire at `deadline` (absolute), or disarms it.
    private mutating func arm(_ deadline: Instant?) -> Bool {
        guard let set = timerFunctions?.set else { return false }
        var value = itimerspec()
        if let deadline {
            // 0 would disarm: a deadline at the clock's origin is long past.
            let at = max(1, deadline.nanoseconds)
            value.it_value.tv_sec = Int(at / 1_000_000_000)
            value.it_value.tv_nsec = Int(at % 1_000_000_000)
        }
        let absolute: Int32 = 1  // TFD_TIMER_ABSTIME
        guard set(timerFD, absolute, &value, nil) == 0 else { return false }
        armed = deadline
        return true
    }

    package mutating func stopWatchingInput() { inputFD = -1 }

    package mutating func wait(until deadline: Instant?) -> LiveWake {
        wait(until: deadline, commandFD: -1, commandDeadline: nil)
    }

    /// `--exec`'s runner is watched too: its descriptor with the input, its
    /// kill deadline on the same timerfd (the earlier of the two deadlines).
    package mutating func wait(until deadline: Instant?, commandFD: Int32, commandDeadline: Instant?) -> LiveWake {
        var fds = (pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: outputFD, events: 0, revents: 0),
                   pollfd(fd: commandFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0))
        let earliest = commandDeadline.map { min($0, deadline ?? $0) } ?? deadline
        var timeout: Nanoseconds?
        var count = 3
        if timerFD >= 0 && (earliest == armed || arm(earliest)) {
            count = 4
        } else {
            // Relative to a reading taken just now: the wait can only end
            // later than the deadline, never earlier, so no wake-up is wasted.
            timeout = earliest.map { $0.saturatingDistance(from: monotonicNow()) }
        }
        let ready = withUnsafeMutableBytes(of: &fds) { raw in
            platformPoll(UnsafeMutableBufferPointer(rebasing: raw.bindMemory(to: pollfd.self)[..<count]), timeout: timeout)
        }
        if ready < 0 {
            // EINTR is a signal. Anything else (ENOMEM) is reported as input
            // being ready: the read that follows either works or reports a
            // real error, and the loop never spins on a failing ppoll.
            return errno == EINTR ? .interrupted : .inputReady
        }
        var fired = ready == 0
        if count == 4 && fds.3.revents != 0 {
            // Consume the expiry; the next wait sets the timer again, even
            // for the same deadline.
            var expirations: UInt64 = 0
            _ = read(timerFD, &expirations, 8)
            armed = nil
            fired = earliest.map { monotonicNow() >= $0 } ?? false
        }
        // ppoll delivers a pending signal only when it has nothing else to
        // report: with input always ready (a steady stream) or the deadline
        // already passed, a SIGINT would stay pending for good.
        if Signals.deliverPending() { return .interrupted }
        let output = Int32(fds.1.revents)
        if output & Int32(POLLNVAL) != 0 { outputFD = -1 }
        if output & (Int32(POLLERR) | Int32(POLLHUP)) != 0 { return .outputClosed }
        // Before input: a steady stream keeps the input ready, and a command
        // that exited must not wait for it to pause.
        if fds.2.revents != 0 || commandDeadline.map({ monotonicNow() >= $0 }) == true { return .commandsReady }
        if fds.0.revents != 0 { return .inputReady }
        if fired && deadline != nil && earliest == deadline { return .deadline }
        // Only the POLLNVAL on stdout, or a stale expiry: wait again.
        if deadline.map({ monotonicNow() >= $0 }) == true { return .deadline }
        return wait(until: deadline, commandFD: commandFD, commandDeadline: commandDeadline)
    }
}
