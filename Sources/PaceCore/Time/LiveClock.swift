// Live mode's clock: what time it is, and a way to sleep until input is
// readable, a deadline comes, or a signal arrives. The live loop sees only the
// LiveClock protocol, so its logic runs in unit tests on a scripted clock that
// never sleeps; SystemLiveClock is the real one, built once by the executable.
//
// The real one, SystemLiveClock, is in Platform/LinuxLiveClock.swift: its
// wait is ppoll(2) (Platform/Linux.swift's platformPoll), with a nanosecond
// timeout (poll's milliseconds would have to be rounded up, making every
// timer up to 1 ms late) and a signal mask swapped in
// atomically for the wait, so the handled signals stay blocked everywhere
// else and one arriving just before the wait is delivered in it (the race
// between checking a flag and blocking, closed).

/// Why a wait ended.
package enum LiveWake: Equatable, Sendable {
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
    /// `--exec`: the runner's descriptor is readable or its kill deadline
    /// came.
    case commandsReady
}

/// The clock live mode runs on.
package protocol LiveClock {
    /// The wall clock (CLOCK_REALTIME), nanoseconds since the Unix epoch. Read
    /// once, at start, to anchor the recorded timeline.
    mutating func wallClockNow() -> Instant
    /// The monotonic clock that also counts suspended time (CLOCK_BOOTTIME),
    /// nanoseconds since an arbitrary origin: the clock events are timed on.
    mutating func monotonicNow() -> Instant
    /// Blocks until the input is readable, the monotonic clock reaches
    /// `deadline` (never, if nil), a signal arrives, or stdout's reader goes
    /// away. Never returns `.deadline` before the deadline.
    mutating func wait(until deadline: Instant?) -> LiveWake
    /// Input has ended: later waits are for timers (and stdout) only.
    mutating func stopWatchingInput()
    /// The same, also watching `--exec`'s runner: `.commandsReady` when
    /// `commandFD` is readable or the monotonic clock reaches
    /// `commandDeadline`.
    mutating func wait(until deadline: Instant?, commandFD: Int32, commandDeadline: Instant?) -> LiveWake
}

extension LiveClock {
    package mutating func stopWatchingInput() {}
    /// A clock that cannot watch commands (the tests' scripted ones).
    package mutating func wait(until deadline: Instant?, commandFD: Int32, commandDeadline: Instant?) -> LiveWake {
        preconditionFailure("\(Self.self) cannot watch --exec's commands")
    }
}

