// `--exec`'s process layer: CommandQueue's decisions carried out on real
// processes. The runner owns every child from spawn to reap: it keeps the
// bytes of the lines waiting for their turn, writes each command's stdin,
// sends the signals the queue asks for (to the command's process group: each
// command leads one, see ProcessSpawner), learns of exits through one
// descriptor (ProcessPlatform: pidfds in an epoll set), looks at the groups
// of signalled commands whose shell has exited, and reports failures.
// Both modes drive it the same way:
//
// - live: `submit` each emitted line; watch `readinessFD` (readable) and
//   `nextDeadline` (CLOCK_BOOTTIME) in the loop's one wait and call
//   `handleReady()` after it (LiveCommands.swift); at end of input (or a
//   signal), `finish`: it shuts down at a terminating signal and waits until
//   every command has exited;
// - replay: `submit`, then `waitUntilIdle` (commands one at a time, each
//   waited for), and `finish` at the end.
//
// Instants passed in (`time`) are pace's timeline, for PACE_TIME and for the
// time a line is discarded (`--dropped`); kill deadlines are on the
// monotonic clock the runner is given, because `--kill-after` is real time
// even in replay.

// libc: close, errno and the signal numbers the queue's effects name.
import Glibc

/// What `--exec` and its modifiers ask for.
package struct CommandOptions: Equatable, Sendable {
    /// CMD, as bytes.
    package var command: [UInt8]
    package var onBusy: OnBusy = .queue
    package var jobs: Int = 1
    package var killAfter: Nanoseconds = CommandOptions.defaultKillAfter

    package static let defaultKillAfter: Nanoseconds = 5_000_000_000

    package init(command: [UInt8], onBusy: OnBusy = .queue, jobs: Int = 1,
                killAfter: Nanoseconds = CommandOptions.defaultKillAfter) {
        self.command = command
        self.onBusy = onBusy
        self.jobs = jobs
        self.killAfter = killAfter
    }
}

package final class CommandRunner<Dropped: LineSink> {
    var queue: CommandQueue<[UInt8]>
    let spawner: ProcessSpawner
    /// Lines discarded here go to it (`--dropped`).
    package internal(set) var dropped: Dropped
    let errorFD: Int32
    /// `--trace`: where each command's start, end and signals, and each
    /// line not run, are told (nil: not traced).
    let traceWriter: TraceWriter?
    let clock: () -> Instant
    let epoll: Int32
    /// `--progress`: erases the status line before a command starts, whose
    /// output goes to the terminal the line is on.
    package var beforeStarting: (() -> Void)?
    /// `--stats`' key table: told of each emitted line (by its key as the
    /// scheduler keeps it) whose command never runs, which the table then
    /// counts dropped.
    package var notRunCounted: ((UnsafeRawBufferPointer, Int64) -> Void)?

    /// A line waiting for its command: with `--batch`, the batch's last
    /// line, the lines before it (each followed by `\n`) and its size (0
    /// without `--batch`: PACE_BATCH is not set).
    struct Stored {
        var line: [UInt8]
        var key: [UInt8]
        var time: Instant
        var before: [UInt8] = []
        var batchSize: Int32 = 0
        /// `--resolve-after`'s mark (PACE_EVENT), `.none` without it.
        var mark: EpisodeMark = .none
        /// Where it comes from: the policy, outside it, or a resolved copy.
        var origin = LineOrigin.policy
        /// The key as the scheduler keeps it, where `key` shows it otherwise
        /// (several values): `--stats`' key table knows it by these bytes.
        var keptKey: [UInt8]? = nil
    }

    struct Child {
        var pid: pid_t
        var pidfd: Int32
        /// The write end of its stdin, -1 once closed.
        var stdinFD: Int32
        /// What is still to be written to it, from `written` on.
        var input: [UInt8]
        var written: Int
        /// pace sent it SIGTERM or SIGKILL: its end is no failure.
        var signalled = false
        /// pace sent it SIGKILL: it is gone once its shell is reaped,
        /// whatever is left of its group.
        var killed = false
    }

    var stored: [EventNumber: Stored] = [:]
    var children: [EventNumber: Child] = [:]
    /// Commands pace sent SIGTERM whose shell has exited and been reaped
    /// while their group still had a process: the group's id (the shell's
    /// pid), until the queue says the command is gone.
    var lingering: [EventNumber: pid_t] = [:]
    /// Lines not run because pace was stopping (a signal): what a second
    /// signal's message counts.
    package internal(set) var notRunAtShutdown: Int64 = 0
    /// The latest time given: when lines discarded by an exit's aftermath go.
    var latestTime: Instant = 0
    /// Live mode: the time on pace's timeline now, which the lines a signal
    /// discards carry (SPEC: the time pace saw the end). Nil in replay,
    /// where the virtual clock stands at the latest line.
    var timelineNow: (() -> Instant)?
    var shutDown = false
    /// When pace saw the signal that shut it down: a line handed over after
    /// it, read before it (its read's time, earlier), is discarded at it.
    var shutDownAt: Instant = 0
    /// `killAll` was called by `waitUntilIdle` (a second signal).
    var killedAll = false
    var failed: Int64 = 0
    /// `--batch`: the lines of discarded batches besides their last, which
    /// the queue (one entry a batch) does not count as not run.
    var batchLinesNotRun: Int64 = 0
    /// Resolved lines never run (`CommandStats.copiesNotRun`).
    var copiesNotRun: Int64 = 0
    /// Exempt and passed lines never run (`CommandStats.outsideNotRun`).
    var outsideNotRun: Int64 = 0
    /// The first command that could not be started: its line and errno.
    package internal(set) var startFailure: (line: EventNumber, errno: Int32)?
    var ready: [(events: UInt32, tag: UInt64)] = []
    /// A write of pace's is waiting for its reader (CommandsWhileWriteWaits.swift):
    /// only signals are sent; the rest of the queue's effects, and the trace
    /// of those signals, wait in `deferred` and `deferredTrace`.
    var writeWaiting = false
    /// Each with the time it was asked at: a line discarded then is
    /// stamped then (`--emit-time`), not when the write let it go.
    var deferred: [(CommandEffect<[UInt8]>, Occasion, Instant)] = []
    var deferredTrace: [(EventNumber, String)] = []

    /// - Parameters:
    ///   - shell: the shell run as `shell -c CMD` (SPEC: /bin/sh; tests
    ///     name one that does not exist).
    ///   - errorFD: where failures are reported (stderr).
    ///   - trace: `--trace`'s writer (the observer's too), if traced.
    ///   - clock: the monotonic clock kill deadlines are on (live mode's
    ///     CLOCK_BOOTTIME, so its wait watches `nextDeadline` as it is).
    package init(_ options: CommandOptions, dropped: Dropped, shell: [UInt8] = Array("/bin/sh".utf8),
                errorFD: Int32 = 2, trace: TraceWriter? = nil, clock: (() -> Instant)? = nil) {
        queue = CommandQueue(jobs: options.jobs, onBusy: options.onBusy, killAfter: options.killAfter)
        spawner = ProcessSpawner(command: options.command, shell: shell)
        self.dropped = dropped
        self.errorFD = errorFD
        traceWriter = trace
        self.clock = clock ?? { ProcessPlatform.monotonicNow() }
        epoll = ProcessPlatform.epollCreate()
        precondition(epoll >= 0, "CommandRunner: epoll_create1 failed (errno \(errno))")
        ProcessPlatform.restoreChildSignal()
        // Writing a command's stdin must report EPIPE, not kill pace (the
        // executable ignores SIGPIPE anyway; the child gets it back).
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

    deinit {
        // Nothing may outlive the runner: a child still here (a driver that
        // stopped early) is killed with its group and reaped, never left a
        // zombie; so is what remains of a lingering group.
        for (_, child) in children {
            ProcessPlatform.signalGroup(child.pid, SIGKILL)
            ProcessPlatform.reapBlocking(child.pid)
            JobControl.remove(child.pid)
            close(child.pidfd)
            if child.stdinFD >= 0 { close(child.stdinFD) }
        }
        for (_, group) in lingering {
            ProcessPlatform.signalGroup(group, SIGKILL)
            JobControl.remove(group)
        }
        close(epoll)
        spawner.release()
    }

    /// What led to the queue's effects (for `--trace`).
    enum Occasion {
        case submitted(EventNumber), shutdown, killAll, killTimer, other
    }

    // MARK: - What the driver sees

    /// Readable when a command has exited or a stdin pipe can take more.
    package var readinessFD: Int32 { epoll }
    /// When a SIGTERMed command is due its SIGKILL, or a lingering group a
    /// look (on `clock`), if any; at once when effects wait to be carried
    /// out, deferred while a write waited.
    package var nextDeadline: Instant? { deferred.isEmpty && deferredTrace.isEmpty ? queue.nextDeadline : 0 }
    /// Input has ended and every command has exited.
    package var isFinished: Bool { queue.isFinished }
    /// No command running, no line waiting, and nothing deferred behind a
    /// write (a command reaped while the write waited leaves its trace and
    /// what the queue then asked).
    package var isIdle: Bool {
        queue.runningCount == 0 && queue.waitingCount == 0 && deferred.isEmpty && deferredTrace.isEmpty
    }
    package var stats: CommandStats {
        CommandStats(run: queue.stats.started, failed: failed, restarted: queue.stats.restarted,
                     notRun: queue.stats.notRun + batchLinesNotRun, copiesNotRun: copiesNotRun,
                     outsideNotRun: outsideNotRun)
    }
    /// What the commands add to pace's exit status: 1 if one could not be
    /// started, else 123 if one failed, else 0. (A signal's 130 or 143 wins
    /// over both; the caller decides that.)
    package var exitStatus: Int32 { startFailure != nil ? 1 : failed > 0 ? 123 : 0 }

    // MARK: - Driving

    /// An emitted line: its command starts now or waits, or the line is
    /// discarded (`--on-busy drop`, after shutdown). `count` is what
    /// `--count` would show; `lineNumber` names it (unique among lines in
    /// flight) in failure messages. `mark`: `--resolve-after`'s (PACE_EVENT);
    /// a resolved or exempt line (and, `kept`, any line outside the policy)
    /// is never discarded by `--on-busy`, and a line outside the policy
    /// takes none of what its key owes (LineOrigin). A resolved line, a copy
    /// of its key's last line, is known to the queue by its own number
    /// (`resolvedLine`), as that line may be in flight too.
    /// A `--batch` is one command: `before` holds its lines before `line`,
    /// its last, each followed by `\n`, and `batchSize` its size (0 without
    /// `--batch`); `count` is its lines'. `key` is the key as the scheduler
    /// keeps it (two keys that look alike stay apart), `shownKey` as
    /// PACE_KEY shows it (nil: the same bytes).
    package func submit(line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, shownKey: [UInt8]? = nil,
                       time: Instant, count: Int64, lineNumber: EventNumber, mark: EpisodeMark = .none,
                       kept: Bool = false, before: [UInt8] = [], batchSize: Int32 = 0) throws(OutputError) {
        latestTime = shutDown ? max(time, shutDownAt) : time
        let id = mark == .resolved ? lineNumber | Self.resolvedLine : lineNumber
        let origin: LineOrigin = mark == .resolved ? .resolved : kept || mark == .exempt ? .outsidePolicy : .policy
        stored[id] = Stored(line: Array(line), key: shownKey ?? Array(key), time: time, before: before,
                            batchSize: batchSize, mark: mark, origin: origin,
                            keptKey: shownKey == nil ? nil : Array(key))
        try perform(queue.reduce(.submit(id, key: Array(key), count: count, now: clock(), origin: origin)),
                    on: .submitted(id))
    }

    /// The bit that sets a resolved line's number apart from its input
    /// line's (line numbers stay far below 2^40).
    static var resolvedLine: EventNumber { 1 << 40 }

    /// The input line a command's number names (a resolved line's is its
    /// key's last line).
    static func inputLine(_ id: EventNumber) -> EventNumber { id & ~resolvedLine }

    /// No more lines: the waiting ones still run.
    package func endOfInput() {
        _ = queue.reduce(.endOfInput)
    }

    /// A terminating signal: nothing new starts, waiting lines are discarded,
    /// running commands get SIGTERM (SIGKILL after `--kill-after`). Once
    /// only: later calls do nothing.
    package func shutdown(at time: Instant) throws(OutputError) {
        latestTime = time
        guard !shutDown else { return }
        shutDown = true
        shutDownAt = time
        try perform(queue.reduce(.shutdown(now: clock())), on: .shutdown)
    }

    /// `shutdown(at:)` when pace saw the signal: live mode's now, else the
    /// latest time given.
    package func shutdown() throws(OutputError) { try shutdown(at: signalTime) }

    /// When a signal that comes now is seen.
    var signalTime: Instant { timelineNow?() ?? latestTime }

    /// A second terminating signal: SIGKILL to every command still running,
    /// at once (and shutdown, if that had not happened).
    package func killAll(at time: Instant) throws(OutputError) {
        latestTime = time
        if !shutDown { shutDownAt = time }
        shutDown = true
        try perform(queue.reduce(.killAll), on: .killAll)
    }

    /// Whether `shutdown` (or `killAll`) has happened.
    package var isShutDown: Bool { shutDown }
}
