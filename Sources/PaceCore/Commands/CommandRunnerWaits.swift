// CommandRunner's waits: after the driver's own wait (`handleReady`: reaps,
// feeds, kills, starts), and the runner's when the driver waits for it
// (`waitUntilIdle`, `finish`: replay's one command at a time, and every run's
// end). The runner's state is in CommandRunner.swift.

extension CommandRunner {
    /// After the wait: reaps exited commands, feeds stdin pipes, sends the
    /// SIGKILLs that are due, and starts what may start. A driver that saw a
    /// signal in the same wait calls `shutdown` first, so that a command the
    /// same signal killed (one sent to pace and its commands alike, as
    /// `kill 0` does) is not reported as failed.
    package func handleReady() throws(OutputError) {
        try performDeferred()
        ready.removeAll(keepingCapacity: true)
        ProcessPlatform.epollReady(epoll, into: &ready)
        // A tag is the line number and one bit: 1 for its stdin pipe, 0 for
        // its pidfd. Whatever the events (writable, error, hang-up), the
        // write or the reap that follows finds out.
        for (_, tag) in ready {
            let line = EventNumber(bitPattern: tag >> 1)
            if tag & 1 == 1 {
                feedInput(line)
            } else if children[line] != nil {
                try reapIfExited(line)
            }
        }
        try fireDueTimers()
    }

    /// Blocks until no command runs or waits. `pendingSignal` (0 for none)
    /// is checked before each wait, where the handled signals are blocked,
    /// and the wait lets them in (platformPoll), so one that comes after the
    /// check ends the wait: then pace shuts down (`shutdown(at:)`) and waits
    /// for the commands to go. Once `endNow` (a second signal) says so,
    /// every command still running gets SIGKILL at once. `look` is called
    /// before each wait (SIGUSR1's summary, `--metrics`); it says how long
    /// until it wants to be called again, if it does.
    package func waitUntilIdle(pendingSignal: () -> Int32, endNow: () -> Bool = { false },
                              look: () -> Nanoseconds? = { nil }) throws(OutputError) {
        while !isIdle {
            if !shutDown && pendingSignal() != 0 { try shutdown() }
            if shutDown && !killedAll && endNow() {
                killedAll = true
                try killAll(at: signalTime)
            }
            // Either may leave nothing to wait for: a command whose shell
            // has exited is gone once its group is sent SIGKILL, and no
            // exit is left to wake the wait.
            if isIdle { break }
            // A SIGUSR1 delivered in this wait (or in the driver's last one,
            // after its last look) is answered here on the next round.
            var deadline = nextDeadline
            if let delay = look() {
                let due = clock().saturatingAdd(delay)
                deadline = min(deadline ?? due, due)
            }
            ProcessPlatform.waitReadable(epoll, until: deadline)
            // Before reaping: a signal sent to pace and its commands alike
            // (`kill 0`; a terminal's Ctrl-C no longer reaches them, in
            // their own groups) is pace's shutdown, not a failure.
            if !shutDown && pendingSignal() != 0 { try shutdown() }
            try handleReady()
        }
    }

    /// End of input, then every command run and waited for; `look` as in
    /// `waitUntilIdle` (the driver, which looks while input is read, is
    /// waiting here).
    package func finish(pendingSignal: () -> Int32, endNow: () -> Bool = { false },
                       look: () -> Nanoseconds? = { nil }) throws(OutputError) {
        endOfInput()
        try waitUntilIdle(pendingSignal: pendingSignal, endNow: endNow, look: look)
    }
}
