// The vocabulary of `--exec`'s queue (CommandQueue.swift): what it is told
// (actions), what it asks the runner to do (effects, plain values a test
// compares), why a line is not run, and its counters for `--stats`.

/// `--on-busy`: what a line does when its key's command is still running or
/// a line of its key is waiting.
package enum OnBusy: String, Sendable, CaseIterable {
    case queue, drop, restart
}

/// Why a line's command never ran.
package enum CommandDiscard: Equatable, Sendable {
    /// `--on-busy drop`: its key was busy.
    case busy
    /// `--on-busy restart`: a newer line of its key replaced it while it waited.
    case replaced
    /// It was waiting (or came later) when pace shut down.
    case shutdown
    /// Its command could not be started.
    case couldNotStart
}

/// What the runner must do.
package enum CommandEffect<Key: Hashable>: Equatable {
    /// Start the command of line `line`; `count` is its PACE_COUNT.
    case start(EventNumber, key: Key, count: Int64)
    /// Send SIGTERM to line `line`'s command (its process group).
    case terminate(EventNumber)
    /// Send SIGKILL to line `line`'s command (its process group).
    case kill(EventNumber)
    /// Look whether line `line`'s group (its shell has exited) is empty now;
    /// if so, send `.groupEmptied`.
    case checkGroup(EventNumber)
    /// Line `line`'s command will never run (`--dropped` gets it).
    case discard(EventNumber, CommandDiscard)
    /// Wake up at this instant and send `.timerFired` (`nextDeadline` says
    /// the same at any time): a SIGKILL is due then.
    case armKillTimer(at: Instant)
    /// The same, for a look at a lingering group.
    case armGroupCheck(at: Instant)
    /// Input has ended and every command has exited: pace may exit.
    case finished
}

/// Where a line submitted to the queue comes from.
package enum LineOrigin: Equatable, Sendable {
    /// The policy emitted it: `--on-busy` may discard it, and it carries
    /// what its key owes for the lines `--on-busy` discarded before.
    case policy
    /// A resolved line of `--resolve-after`: never discarded by `--on-busy`
    /// (it waits behind its key's command), and it carries what its key
    /// owes, as its count does.
    case resolved
    /// A line outside the policy (exempt, or passed by `--on-bad-time
    /// pass`): never discarded by `--on-busy`, and it counts 1, as it is no
    /// event of its key (SPEC: it owes nothing).
    case outsidePolicy

    /// `--on-busy` discards it when its key is busy.
    var discardable: Bool { self == .policy }
    /// It carries what its key owes.
    var takesOwed: Bool { self != .outsidePolicy }
}

/// What happens to the queue.
package enum CommandAction<Key: Hashable>: Equatable {
    /// An emitted line, with its count, at `now` (a restart's SIGTERM arms a
    /// kill timer from it); `origin` says what `--on-busy` may do with it,
    /// and whether it takes what its key owes.
    case submit(EventNumber, key: Key, count: Int64, now: Instant, origin: LineOrigin = .policy)
    /// Line `line`'s shell has exited (for whatever reason), at `now`;
    /// `groupRemains`: pace had sent it SIGTERM (and no SIGKILL) and its
    /// group still has a process, so it is not gone yet.
    case exited(EventNumber, groupRemains: Bool = false, now: Instant = 0)
    /// The group of line `line`, lingering after its shell exited, is empty.
    case groupEmptied(EventNumber)
    /// The runner could not start line `line`'s command: pace stops as at
    /// shutdown, but the commands already running are left to finish.
    case couldNotStart(EventNumber)
    /// The runner did not start line `line`'s command: pace stopped (a
    /// signal) after the queue asked for the start and before the runner
    /// could carry it out (a write that waited). It never runs.
    case withdrawn(EventNumber)
    /// A timer is due (any instant at or after `nextDeadline`).
    case timerFired(now: Instant)
    /// No more lines will be submitted.
    case endOfInput
    /// A terminating signal (SIGINT, SIGTERM, ...: `Signals.terminating`): nothing new
    /// starts; running commands get SIGTERM.
    case shutdown(now: Instant)
    /// A second signal: every running command gets SIGKILL at once.
    case killAll
}

/// Counters for `--stats`.
package struct CommandQueueStats: Equatable, Sendable {
    /// Commands started.
    package var started: Int64 = 0
    /// Running commands sent SIGTERM by `--on-busy restart`.
    package var restarted: Int64 = 0
    /// Lines whose command never ran.
    package var notRun: Int64 = 0

    package init(started: Int64 = 0, restarted: Int64 = 0, notRun: Int64 = 0) {
        self.started = started
        self.restarted = restarted
        self.notRun = notRun
    }
}
