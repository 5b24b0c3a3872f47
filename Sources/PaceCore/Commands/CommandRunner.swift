// `--exec`'s process layer: CommandQueue's decisions carried out on real
// processes. The runner owns every child from spawn to reap: it keeps the
// bytes of the lines waiting for their turn, writes each command's stdin,
// sends the signals the queue asks for, learns of exits through one
// descriptor (ProcessPlatform: pidfds in an epoll set) and reports failures.
// Both modes drive it the same way:
//
// - live: `submit` each emitted line; watch `readinessFD` (readable) and
//   `nextDeadline` (CLOCK_BOOTTIME) in the loop's one wait and call
//   `handleReady()` after it (LiveCommands.swift); at end of input (or a
//   signal), `finish`: it shuts down at SIGINT/SIGTERM and waits until
//   every command has exited;
// - replay: `submit`, then `waitUntilIdle` (commands one at a time, each
//   waited for), and `finish` at the end.
//
// Instants passed in (`time`) are pace's timeline, for PACE_TIME and for the
// time a line is discarded (`--dropped`); kill deadlines are on the
// monotonic clock the runner is given, because `--kill-after` is real time
// even in replay.

import Glibc

/// What `--exec` and its modifiers ask for.
public struct CommandOptions: Equatable, Sendable {
    /// CMD, as bytes.
    public var command: [UInt8]
    public var onBusy: OnBusy = .queue
    public var jobs: Int = 1
    public var killAfter: Nanoseconds = CommandOptions.defaultKillAfter

    public static let defaultKillAfter: Nanoseconds = 5_000_000_000

    public init(command: [UInt8], onBusy: OnBusy = .queue, jobs: Int = 1,
                killAfter: Nanoseconds = CommandOptions.defaultKillAfter) {
        self.command = command
        self.onBusy = onBusy
        self.jobs = jobs
        self.killAfter = killAfter
    }
}

/// `--stats`' command counters.
public struct CommandStats: Equatable, Sendable {
    /// Commands started.
    public var run: Int64 = 0
    /// Commands that exited non-zero or died of a signal pace did not send.
    public var failed: Int64 = 0
    /// Running commands sent SIGTERM by `--on-busy restart`.
    public var restarted: Int64 = 0
    /// Lines whose command never ran.
    public var notRun: Int64 = 0

    public init(run: Int64 = 0, failed: Int64 = 0, restarted: Int64 = 0, notRun: Int64 = 0) {
        self.run = run
        self.failed = failed
        self.restarted = restarted
        self.notRun = notRun
    }
}

public final class CommandRunner<Dropped: LineSink> {
    private var queue: CommandQueue<[UInt8]>
    private let spawner: ProcessSpawner
    /// Lines discarded here go to it (`--dropped`).
    public private(set) var dropped: Dropped
    private let errorFD: Int32
    /// `--trace`: where each command's start, end and signals, and each
    /// line not run, are told (nil: not traced).
    private let traceFD: Int32?
    private let clock: () -> Instant
    private let epoll: Int32

    /// A line waiting for its command.
    private struct Stored {
        var line: [UInt8]
        var key: [UInt8]
        var time: Instant
    }

    private struct Child {
        var pid: pid_t
        var pidfd: Int32
        /// The write end of its stdin, -1 once closed.
        var stdinFD: Int32
        /// What is still to be written to it, from `written` on.
        var input: [UInt8]
        var written: Int
        /// pace sent it SIGTERM or SIGKILL: its end is no failure.
        var signalled = false
    }

    private var stored: [EventNumber: Stored] = [:]
    private var children: [EventNumber: Child] = [:]
    /// The latest time given: when lines discarded by an exit's aftermath go.
    private var latestTime: Instant = 0
    private var shutDown = false
    /// `killAll` was called by `waitUntilIdle` (a second signal).
    private var killedAll = false
    private var failed: Int64 = 0
    /// The first command that could not be started: its line and errno.
    public private(set) var startFailure: (line: EventNumber, errno: Int32)?
    private var ready: [(events: UInt32, tag: UInt64)] = []

    /// - Parameters:
    ///   - shell: the shell run as `shell -c CMD` (SPEC: /bin/sh; tests
    ///     name one that does not exist).
    ///   - errorFD: where failures are reported (stderr).
    ///   - traceFD: `--trace`'s descriptor, if traced.
    ///   - clock: the monotonic clock kill deadlines are on (live mode's
    ///     CLOCK_BOOTTIME, so its wait watches `nextDeadline` as it is).
    public init(_ options: CommandOptions, dropped: Dropped, shell: [UInt8] = Array("/bin/sh".utf8),
                errorFD: Int32 = 2, traceFD: Int32? = nil, clock: (() -> Instant)? = nil) {
        queue = CommandQueue(jobs: options.jobs, onBusy: options.onBusy, killAfter: options.killAfter)
        spawner = ProcessSpawner(command: options.command, shell: shell)
        self.dropped = dropped
        self.errorFD = errorFD
        self.traceFD = traceFD
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
        // stopped early) is killed and reaped, never left a zombie.
        for (_, child) in children {
            ProcessPlatform.signal(child.pid, SIGKILL)
            ProcessPlatform.reapBlocking(child.pid)
            close(child.pidfd)
            if child.stdinFD >= 0 { close(child.stdinFD) }
        }
        close(epoll)
        spawner.release()
    }

    // MARK: - What the driver sees

    /// Readable when a command has exited or a stdin pipe can take more.
    public var readinessFD: Int32 { epoll }
    /// When a SIGTERMed command is due its SIGKILL (on `clock`), if any.
    public var nextDeadline: Instant? { queue.nextKillDeadline }
    /// Input has ended and every command has exited.
    public var isFinished: Bool { queue.isFinished }
    /// Commands running or lines waiting.
    public var isIdle: Bool { queue.runningCount == 0 && queue.waitingCount == 0 }
    public var stats: CommandStats {
        CommandStats(run: queue.stats.started, failed: failed, restarted: queue.stats.restarted,
                     notRun: queue.stats.notRun)
    }
    /// What the commands add to pace's exit status: 1 if one could not be
    /// started, else 123 if one failed, else 0. (A signal's 130 or 143 wins
    /// over both; the caller decides that.)
    public var exitStatus: Int32 { startFailure != nil ? 1 : failed > 0 ? 123 : 0 }

    // MARK: - Driving

    /// An emitted line: its command starts now or waits, or the line is
    /// discarded (`--on-busy drop`, after shutdown). `count` is what
    /// `--count` would show; `lineNumber` names it (unique among lines in
    /// flight) in failure messages.
    public func submit(line: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, time: Instant, count: Int64,
                       lineNumber: EventNumber) throws(OutputError) {
        latestTime = time
        stored[lineNumber] = Stored(line: Array(line), key: Array(key), time: time)
        try perform(queue.reduce(.submit(lineNumber, key: Array(key), count: count, now: clock())),
                    on: .submitted(lineNumber))
    }

    /// No more lines: the waiting ones still run.
    public func endOfInput() {
        _ = queue.reduce(.endOfInput)
    }

    /// SIGINT or SIGTERM: nothing new starts, waiting lines are discarded,
    /// running commands get SIGTERM (SIGKILL after `--kill-after`). Once
    /// only: later calls do nothing.
    public func shutdown(at time: Instant) throws(OutputError) {
        latestTime = time
        guard !shutDown else { return }
        shutDown = true
        try perform(queue.reduce(.shutdown(now: clock())), on: .shutdown)
    }

    /// `shutdown(at:)` at the latest time given.
    public func shutdown() throws(OutputError) { try shutdown(at: latestTime) }

    /// A second SIGINT or SIGTERM: SIGKILL to every command still running,
    /// at once (and shutdown, if that had not happened).
    public func killAll(at time: Instant) throws(OutputError) {
        latestTime = time
        shutDown = true
        try perform(queue.reduce(.killAll), on: .killAll)
    }

    /// Whether `shutdown` (or `killAll`) has happened.
    public var isShutDown: Bool { shutDown }

    /// After the wait: reaps exited commands, feeds stdin pipes, sends the
    /// SIGKILLs that are due, and starts what may start. A driver that saw a
    /// signal in the same wait calls `shutdown` first, so that a command the
    /// terminal's Ctrl-C killed too is not reported as failed.
    public func handleReady() throws(OutputError) {
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
        if let due = queue.nextKillDeadline, due <= clock() {
            try perform(queue.reduce(.killTimerFired(now: clock())), on: .killTimer)
        }
    }

    /// Blocks until no command runs or waits. `pendingSignal` (0 for none)
    /// is checked before each wait, where the handled signals are blocked,
    /// and the wait lets them in (platformPoll), so one that comes after the
    /// check ends the wait: then pace shuts down (`shutdown(at:)`) and waits
    /// for the commands to go. Once `endNow` (a second signal) says so,
    /// every command still running gets SIGKILL at once.
    public func waitUntilIdle(pendingSignal: () -> Int32, endNow: () -> Bool = { false }) throws(OutputError) {
        while !isIdle {
            if !shutDown && pendingSignal() != 0 { try shutdown(at: latestTime) }
            if shutDown && !killedAll && endNow() {
                killedAll = true
                try killAll(at: latestTime)
            }
            ProcessPlatform.waitReadable(epoll, until: killedAll ? nil : queue.nextKillDeadline)
            // Before reaping: a terminal's Ctrl-C reaches the command too, and
            // a command that died of it is pace's shutdown, not a failure.
            if !shutDown && pendingSignal() != 0 { try shutdown(at: latestTime) }
            try handleReady()
        }
    }

    /// End of input, then every command run and waited for.
    public func finish(pendingSignal: () -> Int32, endNow: () -> Bool = { false }) throws(OutputError) {
        endOfInput()
        try waitUntilIdle(pendingSignal: pendingSignal, endNow: endNow)
    }

    // MARK: - Effects

    /// What led to the queue's effects (for `--trace`).
    private enum Occasion {
        case submitted(EventNumber), shutdown, killAll, killTimer, other
    }

    private func perform(_ effects: [CommandEffect<[UInt8]>], on occasion: Occasion = .other) throws(OutputError) {
        for effect in effects {
            switch effect {
            case let .start(line, _, count):
                if let errno = start(line, count: count) {
                    if startFailure == nil { startFailure = (line, errno) }
                    report("pace: line \(line): cannot run \(String(decoding: spawner.shell, as: UTF8.self)): \(String(cString: strerror(errno)))\n")
                    try perform(queue.reduce(.couldNotStart(line)))
                } else if traceFD != nil {
                    trace(line, "command started")
                }
            case let .terminate(line):
                if traceFD != nil, children[line] != nil {
                    if case let .submitted(later) = occasion {
                        trace(line, "command sent SIGTERM: restarted by line \(later)")
                    } else {
                        trace(line, "command sent SIGTERM: pace is stopping")
                    }
                }
                send(SIGTERM, to: line)
            case let .kill(line):
                if traceFD != nil, children[line] != nil {
                    if case .killTimer = occasion {
                        trace(line, "command sent SIGKILL: still running after --kill-after")
                    } else {
                        trace(line, "command sent SIGKILL: pace is stopping at once")
                    }
                }
                send(SIGKILL, to: line)
            case let .discard(line, why):
                if traceFD != nil { trace(line, notRunText(why, occasion)) }
                if let line = stored.removeValue(forKey: line) {
                    var failure: OutputError?
                    line.line.withUnsafeBytes { bytes in
                        do throws(OutputError) { try dropped.emit(bytes, at: latestTime) } catch { failure = error }
                    }
                    if let failure { throw failure }
                }
            case .armKillTimer, .finished:
                // The deadline is `nextDeadline`; the end is `isFinished`.
                break
            }
        }
    }

    /// `--trace`'s words for a line whose command never runs.
    private func notRunText(_ why: CommandDiscard, _ occasion: Occasion) -> String {
        switch why {
        case .busy: return "not run: its key's command is busy (--on-busy drop)"
        case .replaced:
            if case let .submitted(later) = occasion { return "not run: replaced by line \(later)" }
            return "not run: replaced"
        case .shutdown: return "not run: pace is stopping"
        case .couldNotStart: return "not run: its command could not be started"
        }
    }

    private func send(_ number: Int32, to line: EventNumber) {
        guard children[line] != nil else { return }
        children[line]!.signalled = true
        ProcessPlatform.signal(children[line]!.pid, number)
    }

    /// Spawns line `line`'s command; the errno if it could not be started
    /// (its line then stays stored, for `--dropped`).
    private func start(_ line: EventNumber, count: Int64) -> Int32? {
        let entry = stored[line]!
        let pipe = ProcessPlatform.stdinPipe()
        if pipe.read < 0 { return -pipe.read }
        var time = [UInt8](repeating: 0, count: maxSecondsLength)
        let timeLength = time.withUnsafeMutableBytes { formatSeconds(entry.time, into: $0.baseAddress!) }
        let countText = Array(String(count).utf8)
        let result = entry.line.withUnsafeBytes { lineBytes in
            entry.key.withUnsafeBytes { keyBytes in
                time.withUnsafeBytes { timeBytes in
                    countText.withUnsafeBytes { countBytes in
                        spawner.spawn(stdinFD: pipe.read, values: [
                            lineBytes, keyBytes, UnsafeRawBufferPointer(rebasing: timeBytes[..<timeLength]), countBytes,
                        ])
                    }
                }
            }
        }
        close(pipe.read)
        let pid: pid_t
        switch result {
        case let .success(spawned): pid = spawned
        case let .failure(error):
            close(pipe.write)
            return error.errno
        }
        let pidfd = ProcessPlatform.pidfdOpen(pid)
        if pidfd < 0 {
            // Started but unwatchable (no pidfd on this kernel, or out of
            // descriptors): it must not run unowned.
            close(pipe.write)
            ProcessPlatform.signal(pid, SIGKILL)
            ProcessPlatform.reapBlocking(pid)
            return -pidfd
        }
        _ = ProcessPlatform.epollAdd(epoll, fd: pidfd, events: ProcessPlatform.epollIn,
                                     tag: UInt64(bitPattern: line) << 1)
        stored[line] = nil
        var input = entry.line
        input.append(0x0A)
        children[line] = Child(pid: pid, pidfd: pidfd, stdinFD: pipe.write, input: input, written: 0)
        feedInput(line, registered: false)
        return nil
    }

    /// Writes what the pipe takes of the command's stdin; closes it when all
    /// is written or the command stopped reading (EPIPE), else waits for the
    /// pipe to be writable. A command that never reads cannot stall pace.
    private func feedInput(_ line: EventNumber, registered: Bool = true) {
        guard var child = children[line], child.stdinFD >= 0 else { return }
        var done = false
        while !done && child.written < child.input.count {
            let result = child.input.withUnsafeBytes {
                ProcessPlatform.write(child.stdinFD, UnsafeRawBufferPointer(rebasing: $0[child.written...]))
            }
            switch result {
            case let .wrote(n): child.written += n
            case .full:
                if !registered {
                    _ = ProcessPlatform.epollAdd(epoll, fd: child.stdinFD, events: ProcessPlatform.epollOut,
                                                 tag: UInt64(bitPattern: line) << 1 | 1)
                }
                children[line] = child
                return
            case .closed: done = true
            }
        }
        closeInput(&child)
        children[line] = child
    }

    private func closeInput(_ child: inout Child) {
        guard child.stdinFD >= 0 else { return }
        ProcessPlatform.epollRemove(epoll, fd: child.stdinFD)
        close(child.stdinFD)
        child.stdinFD = -1
        child.input = []
    }

    private func reapIfExited(_ line: EventNumber) throws(OutputError) {
        guard var child = children[line], let status = ProcessPlatform.reap(child.pid) else { return }
        closeInput(&child)
        ProcessPlatform.epollRemove(epoll, fd: child.pidfd)
        close(child.pidfd)
        children[line] = nil
        if traceFD != nil {
            switch ProcessPlatform.exitStatus(status) {
            case let .exited(code): trace(line, "command exited with status \(code)")
            case let .signalled(number): trace(line, "command killed by signal \(number)")
            }
        }
        if !child.signalled {
            switch ProcessPlatform.exitStatus(status) {
            case .exited(0): break
            case let .exited(code):
                failed += 1
                report("pace: line \(line): command exited with status \(code)\n")
            case let .signalled(number):
                failed += 1
                report("pace: line \(line): command killed by signal \(number)\n")
            }
        }
        try perform(queue.reduce(.exited(line)))
    }

    private func trace(_ line: EventNumber, _ what: String) {
        guard let traceFD else { return }
        var text = "pace: trace: line \(line): \(what)\n"
        text.withUTF8 { try? writeAll(fd: traceFD, UnsafeRawBufferPointer($0), target: "stderr") }
    }

    private func report(_ text: String) {
        var text = text
        text.withUTF8 { try? writeAll(fd: errorFD, UnsafeRawBufferPointer($0), target: "stderr") }
    }
}
