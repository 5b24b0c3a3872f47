// Ctrl-Z with `--exec` (SPEC is silent; docs/CHOICES.md). Each command runs
// in a process group of its own (SPEC), outside the terminal's foreground
// group, so the terminal's SIGTSTP stops pace and leaves a `make` running and
// writing to the terminal. So with `--exec` pace handles SIGTSTP: it sends
// SIGTSTP to every command's group, stops itself as the default action would
// (the signal's default restored and raised, so a process group the kernel
// may not stop, an orphaned one, is not stopped here either), and once
// continued (`fg`, `bg`, SIGCONT) sends SIGCONT to those groups.
//
// It all happens in the handler, which runs only where pace lets the handled
// signals in (its waits, and between two buffers of input: LinuxSignals.swift),
// so the list of groups it reads is never being changed meanwhile. The list
// is a plain buffer of pids, read with kill(2) only: what a handler may do.
//
// A SIGCONT may come before pace has stopped (a script's `kill -TSTP` then
// `kill -CONT`): pace must then not stop, or nothing would continue it. The
// kernel's rule does it, as for a stop without a handler: a SIGCONT throws
// away a stop signal that is pending. So the handler raises its own stop
// first, while SIGTSTP is blocked, and lets it in only after the commands
// have been sent theirs: a SIGCONT meanwhile has discarded it. One that came
// before the raise (which would discard a pending SIGCONT in turn) is still
// pending when the handler begins, SIGCONT being blocked in it: then nothing
// is stopped at all. One that comes between that look and the raise is
// discarded by the raise, and pace stays stopped until the next SIGCONT: the
// window every program that stops itself from a SIGTSTP handler has
// (docs/CHOICES.md).

import Glibc

/// The process groups of `--exec`'s commands, which a Ctrl-Z stops with pace.
package enum JobControl {
    nonisolated(unsafe) private static var groups = UnsafeMutablePointer<pid_t>.allocate(capacity: 16)
    nonisolated(unsafe) private static var capacity = 16
    nonisolated(unsafe) private static var count = 0
    /// Set once, by `start` (from `Signals.stopCommandsWithPace`: the
    /// executable, with `--exec`): the runners of the unit tests, side by
    /// side on threads of their own, list nothing.
    nonisolated(unsafe) private static var active = false

    /// A command's group (its shell's pid) is pace's until `remove`.
    static func add(_ group: pid_t) {
        guard active else { return }
        if count == capacity {
            let bigger = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: groups, count: count)
            groups.deallocate()
            groups = bigger
            capacity *= 2
        }
        groups[count] = group
        count += 1
    }

    /// The command of `group` is gone (or was never stopped with pace).
    static func remove(_ group: pid_t) {
        guard active else { return }
        var i = count - 1
        while i >= 0 && groups[i] != group { i -= 1 }
        guard i >= 0 else { return }
        count -= 1
        groups[i] = groups[count]
    }

    /// From now on the runners list their commands' groups. The storage is
    /// made here, not at the handler's first read.
    static func start() {
        _ = (groups, capacity, count)
        active = true
    }

    /// SIGTSTP's handler, inside pace's signal handler: the commands stop,
    /// pace stops, and both go on together.
    /// (Runs with SIGCONT blocked: `handler`'s mask holds it.)
    static func stopWithCommands(handler: sigaction) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigaction(SIGTSTP, &action, nil)
        var handler = handler
        var pending = sigset_t()
        sigpending(&pending)
        guard sigismember(&pending, SIGCONT) == 0 else {
            // Continued already: nothing stops.
            sigaction(SIGTSTP, &handler, nil)
            return
        }
        _ = kill(getpid(), SIGTSTP)
        for i in 0..<count { _ = kill(-groups[i], SIGTSTP) }
        // Let in: pace stops here (unless a SIGCONT discarded the stop),
        // and goes on here once continued.
        var stopSignal = sigset_t()
        sigemptyset(&stopSignal)
        sigaddset(&stopSignal, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stopSignal, nil)
        pthread_sigmask(SIG_BLOCK, &stopSignal, nil)
        sigaction(SIGTSTP, &handler, nil)
        for i in 0..<count { _ = kill(-groups[i], SIGCONT) }
    }
}
