// The signal handlers and masks (see Linux.swift's opening comment for how
// signals and waits fit together): what the handlers record, and what the
// run asks of it (through RunSignals.process).

import Glibc

// MARK: - Signals

// What the handlers record, and the masks. The handler only writes the three
// counters (or, before the run, ends pace); the loops read them where the
// signals are blocked.
nonisolated(unsafe) private var firstTermination: sig_atomic_t = 0
nonisolated(unsafe) private var terminationCount: sig_atomic_t = 0
nonisolated(unsafe) private var statsRequests: sig_atomic_t = 0
/// 1 until the run begins: a terminating signal then exits at once.
nonisolated(unsafe) private var startingUp: sig_atomic_t = 0
nonisolated(unsafe) private var handledSignals = sigset_t()
/// The handled signals as bits (signal N is bit N - 1), as glibc lays out
/// the first word of a sigset_t: what `deliverPending` compares.
nonisolated(unsafe) private var handledBits: UInt64 = 0
nonisolated(unsafe) private var waitSignalMask = sigset_t()
nonisolated(unsafe) private var installed = false
/// SIGTSTP's handler with `--exec`, put back after each stop.
nonisolated(unsafe) private var stopAction = sigaction()

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT end input, and a second one ends pace
/// at once; pace exits with 128 + the first one's number. SIGHUP and SIGQUIT
/// act as SIGTERM does (SPEC): `--exec`'s commands run in process groups of
/// their own, so a closed terminal or a Ctrl-\ reaches pace alone, which
/// then stops what it started. So do the other signals whose default action
/// would end pace where it stands and leave those commands running (SPEC is
/// silent; docs/CHOICES.md): SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO,
/// SIGPWR, SIGSTKFLT and SIGXCPU. Not SIGXFSZ, which pace's own write past
/// a file size limit raises (no one sends it), nor the real-time signals:
/// they keep their default. SIGUSR1 asks for the `--stats` summary so far.
package enum Signals {
    /// The signals that end pace.
    package static let terminating: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT,
                                               SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU]
    private static let all = terminating + [SIGUSR1]

    /// Installs the handlers: the first thing pace does, so that a signal
    /// sent as pace starts is not met by the default action (death, or a
    /// core dump for SIGQUIT). Until `beginRun`, a terminating signal ends
    /// pace at once from its handler with exit status 128 + N (the handler
    /// calls _exit, which is async-signal-safe): nothing has been read or
    /// written yet, and a blocking open(2) of a `--record` or `--dropped` FIFO
    /// could otherwise wait for ever for a reader, the signal
    /// already taken (a flag checked before the open would leave that
    /// race). A signal ignored when pace starts stays ignored, as Unix tools
    /// do (a shell starts background jobs with SIGINT and SIGQUIT ignored,
    /// `nohup` ignores SIGHUP). SIGPIPE is ignored: a closed stdout shows up
    /// as EPIPE, which ends pace quietly.
    package static func install() {
        sigemptyset(&handledSignals)
        for number in all {
            var previous = sigaction()
            sigaction(number, nil, &previous)
            let ignored = unsafeBitCast(previous.__sigaction_handler.sa_handler, to: Int.self)
                == unsafeBitCast(SIG_IGN, to: Int.self)
            if !ignored {
                sigaddset(&handledSignals, number)
                handledBits |= 1 << UInt64(number - 1)
            }
        }
        startingUp = 1
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            if number == SIGUSR1 {
                statsRequests = 1
                return
            }
            if startingUp != 0 { _exit(128 + number) }
            if firstTermination == 0 { firstTermination = number }
            terminationCount &+= 1
        }
        // No handler runs inside another; no SA_RESTART: a wait must end.
        action.sa_mask = handledSignals
        action.sa_flags = 0
        for number in all where sigismember(&handledSignals, number) == 1 {
            sigaction(number, &action, nil)
        }
        // The wait mask is the mask a parent handed over (Foundation's
        // Process blocks signals) minus the handled ones, which must be
        // deliverable while pace waits; until the run begins they are
        // deliverable everywhere (one the parent left pending ends pace now).
        pthread_sigmask(SIG_UNBLOCK, &handledSignals, &waitSignalMask)
        for number in all where sigismember(&handledSignals, number) == 1 {
            sigdelset(&waitSignalMask, number)
        }
        installed = true
        signal(SIGPIPE, SIG_IGN)
    }

    /// `--exec`: SIGTSTP (Ctrl-Z) stops the commands with pace, and they go
    /// on with it (LinuxJobControl.swift). Unless SIGTSTP was ignored when
    /// pace started. Before `beginRun`, which blocks it with the others.
    package static func stopCommandsWithPace() {
        var previous = sigaction()
        sigaction(SIGTSTP, nil, &previous)
        guard unsafeBitCast(previous.__sigaction_handler.sa_handler, to: Int.self)
            != unsafeBitCast(SIG_IGN, to: Int.self) else { return }
        sigaddset(&handledSignals, SIGTSTP)
        handledBits |= 1 << UInt64(SIGTSTP - 1)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in JobControl.stopWithCommands(handler: stopAction) }
        action.sa_mask = handledSignals
        // SIGCONT waits while the handler runs, where it asks whether one came.
        sigaddset(&action.sa_mask, SIGCONT)
        action.sa_flags = 0
        stopAction = action
        JobControl.start()
        sigaction(SIGTSTP, &action, nil)
        sigdelset(&waitSignalMask, SIGTSTP)
    }

    /// The run begins: the handled signals are blocked from here on but for
    /// the waits (see the top of this file), and a terminating one is
    /// recorded, not acted on at once. Blocked first, so one that comes in
    /// between is held for the run, not lost.
    package static func beginRun() {
        pthread_sigmask(SIG_BLOCK, &handledSignals, nil)
        startingUp = 0
    }

    /// The first terminating signal received, or 0.
    package static var termination: Int32 { firstTermination }

    /// A second terminating signal came: pace ends at once.
    package static var endNow: Bool { terminationCount >= 2 }

    /// Whether a signal came that the run has yet to act on: a terminating
    /// one (the first ends input, and no read follows) or SIGUSR1. What a
    /// read asks before it waits: a signal taken in an earlier wait (a
    /// write's, as replay flushes before it waits for input) must not leave
    /// it waiting for input that may never come.
    package static var awaitsAction: Bool { firstTermination != 0 || statsRequests != 0 }

    /// Whether a SIGUSR1 came since the last call (which consumes it).
    package static func takeStatsRequest() -> Bool {
        guard statsRequests != 0 else { return false }
        statsRequests = 0
        return true
    }

    /// Lets handled signals that are pending run their handlers; true if
    /// there were any. One sigpending(2) when there are none.
    @discardableResult
    package static func deliverPending() -> Bool {
        guard installed else { return false }
        var pending = sigset_t()
        sigpending(&pending)
        // One word, not a sigismember pair per signal (the list grew to 13).
        guard pending.__val.0 & UInt(handledBits) != 0 else { return false }
        // The kernel delivers them on the way out of the first call.
        pthread_sigmask(SIG_UNBLOCK, &handledSignals, nil)
        pthread_sigmask(SIG_BLOCK, &handledSignals, nil)
        return true
    }

    /// The terminating signal received so far, delivering pending ones
    /// first (what the loops check between read batches).
    package static func pendingTermination() -> Int32 {
        deliverPending()
        return firstTermination
    }

    /// Makes `number` (SIGWINCH, for `--progress`) deliverable everywhere,
    /// waits included, even if the parent handed it over blocked.
    static func unblock(_ number: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        sigdelset(&waitSignalMask, number)
    }

    /// Runs `body` with the mask for a wait; nil (leave the mask as it is)
    /// when no handlers are installed (unit tests).
    static func withWaitMask<R>(_ body: (UnsafePointer<sigset_t>?) -> R) -> R {
        guard installed else { return body(nil) }
        return withUnsafePointer(to: &waitSignalMask) { body($0) }
    }
}
