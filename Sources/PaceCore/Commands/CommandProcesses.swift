// CommandRunner's side that touches processes: carrying out the queue's
// effects (start, terminate, kill, discard), writing each line to its
// command's stdin, reaping exits, and what is reported about them. The
// runner's state and the driver's view of it are in CommandRunner.swift; a
// discarded line's way to `--dropped`, in CommandsNotRun.swift.

// libc: write and close on the commands' stdin pipes, errno, strerror and
// the signal numbers sent.
import Glibc

extension CommandRunner {
    // MARK: - Effects

    func perform(_ effects: [CommandEffect<[UInt8]>], on occasion: Occasion = .other) throws(OutputError) {
        try performDeferred()
        // Signals first: the other effects may write (a line to
        // `--dropped`, a message), and a write may wait for a stalled
        // reader, which a SIGTERM must not wait behind (SPEC).
        for effect in effects where effect.isSignal { try perform(effect, on: occasion) }
        let time = latestTime
        let writes = effects.lazy.filter { !$0.isSignal }.map { ($0, occasion, time) }
        // While a write waits for its reader, signals only.
        if writeWaiting {
            deferred.append(contentsOf: writes)
        } else {
            try performEach(writes)
        }
    }

    /// Carries out `effects` in order. A failed write (a second signal's,
    /// a full disk) does not end them: the lines after it are counted as
    /// not run all the same (SPEC: a second signal says how many); the
    /// first error is thrown after. Each is carried out at the time it was
    /// asked at (a deferred one's is earlier than the latest time given,
    /// which is kept).
    func performEach<Effects: Sequence>(_ effects: Effects) throws(OutputError)
        where Effects.Element == (CommandEffect<[UInt8]>, Occasion, Instant) {
        let latest = latestTime
        defer { latestTime = latest }
        var failure: OutputError?
        for (effect, occasion, time) in effects {
            latestTime = time
            do throws(OutputError) { try perform(effect, on: occasion) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    func perform(_ effect: CommandEffect<[UInt8]>, on occasion: Occasion) throws(OutputError) {
        switch effect {
        case let .start(line, _, count):
            // A signal came since the queue asked (while a write waited):
            // no new command starts (SPEC).
            if shutDown { return try perform(queue.reduce(.withdrawn(line)), on: .shutdown) }
            beforeStarting?()
            if let errno = start(line, count: count) {
                if startFailure == nil { startFailure = (line, errno) }
                report("pace: \(lineName(Self.inputLine(line))): cannot run \(String(decoding: spawner.shell, as: UTF8.self)): \(String(cString: strerror(errno)))\n")
                try perform(queue.reduce(.couldNotStart(line)))
            } else {
                // `restart` stopped it before it started (its start waited
                // for a write): it gets the signals now, before any trace
                // is written, which may wait in its turn.
                let caughtUp = sendSignalsAskedFor(line)
                if traceWriter != nil {
                    trace(line, "command started")
                    traceSignals(caughtUp, of: line)
                }
            }
        case let .terminate(line):
            // Sent before it is traced (the trace may wait); told once.
            let told = children[line].map { !$0.signalled } ?? false
            send(SIGTERM, to: line)
            if traceWriter != nil, told {
                if case let .submitted(later) = occasion {
                    trace(line, "command sent SIGTERM: restarted by line \(later)")
                } else {
                    trace(line, "command sent SIGTERM: pace is stopping")
                }
            }
        case let .kill(line):
            let told = children[line].map { !$0.killed } ?? (lingering[line] != nil)
            send(SIGKILL, to: line)
            if traceWriter != nil, told {
                if case .killTimer = occasion {
                    trace(line, "command sent SIGKILL: still running after --kill-after")
                } else {
                    trace(line, "command sent SIGKILL: pace is stopping at once")
                }
            }
        case let .checkGroup(line):
            if let group = lingering[line], ProcessPlatform.groupIsEmpty(group) {
                lingering[line] = nil
                JobControl.remove(group)
                try perform(queue.reduce(.groupEmptied(line)))
            }
        case let .discard(line, why):
            if traceWriter != nil { trace(line, notRunText(why, occasion)) }
            if line & Self.resolvedLine != 0 { copiesNotRun += 1 }
            // A resolved line never run goes to no file: it is a copy.
            if let line = stored.removeValue(forKey: line), line.mark != .resolved {
                stored.releaseSpareCapacity()
                let lines = Int64(max(line.batchSize, 1))
                if line.origin == .outsidePolicy { outsideNotRun += lines }
                if line.origin == .policy, let notRunCounted {
                    (line.keptKey ?? line.key).withUnsafeBytes { notRunCounted($0, lines) }
                }
                if why == .shutdown { notRunAtShutdown += lines }
                batchLinesNotRun += lines - 1
                try discard(line)
            } else if why == .shutdown {
                notRunAtShutdown += 1
            }
        case .armKillTimer, .armGroupCheck, .finished:
            // The deadline is `nextDeadline`; the end is `isFinished`.
            break
        }
    }

    /// Signals line `line`'s command: its whole process group (the shell's
    /// pid is its id). The group of a shell not reaped yet cannot have been
    /// reused, since the zombie still holds the id; a lingering group is
    /// signalled only while the queue has it (a SIGKILL ends that), and the
    /// id is taken again only by a process made leader of a new group after
    /// this one emptied and the pid wrapped around, the race any shell's
    /// `kill %1` has.
    /// A SIGTERM is followed by SIGCONT, as systemd and kill(1)'s users do:
    /// a stopped command (`kill -STOP`, Ctrl-Z's SIGTSTP) then acts on it
    /// instead of holding pace until `--kill-after`'s SIGKILL.
    func send(_ number: Int32, to line: EventNumber) {
        let group: pid_t
        if children[line] != nil {
            // Once is enough (a command started after the queue stopped it
            // is sent what it missed at its start).
            if number == SIGTERM && children[line]!.signalled { return }
            children[line]!.signalled = true
            if number == SIGKILL { children[line]!.killed = true }
            group = children[line]!.pid
        } else if let lingeringGroup = lingering[line] {
            group = lingeringGroup
            // Gone for the queue: sent SIGKILL.
            if number == SIGKILL {
                lingering[line] = nil
                JobControl.remove(lingeringGroup)
            }
        } else {
            return
        }
        ProcessPlatform.signalGroup(group, number)
        if number == SIGTERM { ProcessPlatform.signalGroup(group, SIGCONT) }
    }

    /// Spawns line `line`'s command; the errno if it could not be started
    /// (its line then stays stored, for `--dropped`).
    func start(_ line: EventNumber, count: Int64) -> Int32? {
        let entry = stored[line]!
        let pipe = ProcessPlatform.stdinPipe()
        if pipe.read < 0 { return -pipe.read }
        var time = [UInt8](repeating: 0, count: maxSecondsLength)
        let timeLength = time.withUnsafeMutableBytes { formatSeconds(entry.time, into: $0.baseAddress!) }
        let countText = Array(String(count).utf8)
        // PACE_BATCH only with `--batch`.
        let batchText = entry.batchSize > 0 ? Array(String(entry.batchSize).utf8) : nil
        let result = entry.line.withUnsafeBytes { lineBytes in
            entry.key.withUnsafeBytes { keyBytes in
                time.withUnsafeBytes { timeBytes in
                    countText.withUnsafeBytes { countBytes in
                        entry.mark.word.utf8CString.withUnsafeBytes { eventBytes in
                            (batchText ?? []).withUnsafeBytes { batchBytes in
                                // PACE_EVENT only with --resolve-after, PACE_BATCH only with --batch.
                                spawner.spawn(stdinFD: pipe.read, values: [
                                    lineBytes, keyBytes, UnsafeRawBufferPointer(rebasing: timeBytes[..<timeLength]),
                                    countBytes, entry.mark != .none ? UnsafeRawBufferPointer(rebasing: eventBytes.dropLast()) : nil,
                                    batchText != nil ? batchBytes : nil,
                                ])
                            }
                        }
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
            ProcessPlatform.signalGroup(pid, SIGKILL)
            ProcessPlatform.reapBlocking(pid)
            return -pidfd
        }
        _ = ProcessPlatform.epollAdd(epoll, fd: pidfd, events: ProcessPlatform.epollIn,
                                     tag: UInt64(bitPattern: line) << 1)
        stored[line] = nil
        stored.releaseSpareCapacity()
        var input = entry.before
        input.append(contentsOf: entry.line)
        input.append(0x0A)
        children[line] = Child(pid: pid, pidfd: pidfd, stdinFD: pipe.write, input: input, written: 0)
        // Ctrl-Z stops it with pace (Platform/LinuxJobControl.swift).
        JobControl.add(pid)
        feedInput(line, registered: false)
        return nil
    }

    /// Writes what the pipe takes of the command's stdin; closes it when all
    /// is written or the command stopped reading (EPIPE), else waits for the
    /// pipe to be writable. A command that never reads cannot stall pace.
    func feedInput(_ line: EventNumber, registered: Bool = true) {
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

    func closeInput(_ child: inout Child) {
        guard child.stdinFD >= 0 else { return }
        ProcessPlatform.epollRemove(epoll, fd: child.stdinFD)
        close(child.stdinFD)
        child.stdinFD = -1
        child.input = []
    }

    func reapIfExited(_ line: EventNumber) throws(OutputError) {
        guard var child = children[line], let status = ProcessPlatform.reap(child.pid) else { return }
        closeInput(&child)
        ProcessPlatform.epollRemove(epoll, fd: child.pidfd)
        close(child.pidfd)
        children[line] = nil
        if traceWriter != nil {
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
                report("pace: \(lineName(Self.inputLine(line))): command exited with status \(code)\n")
            case let .signalled(number):
                failed += 1
                report("pace: \(lineName(Self.inputLine(line))): command killed by signal \(number)\n")
            }
        }
        // A command pace sent SIGTERM (and no SIGKILL) is gone only once its
        // group is empty (SPEC): whether it is can be known only now that
        // the shell is reaped, since a zombie leader keeps its group alive.
        let groupRemains = child.signalled && !child.killed && !ProcessPlatform.groupIsEmpty(child.pid)
        if groupRemains { lingering[line] = child.pid } else { JobControl.remove(child.pid) }
        try perform(queue.reduce(.exited(line, groupRemains: groupRemains, now: clock())))
    }

    func trace(_ line: EventNumber, _ what: String) {
        // The trace goes to stderr, which may be the write that waits.
        if writeWaiting {
            deferredTrace.append((line, what))
            return
        }
        traceWriter?.say(Self.inputLine(line), what)
    }

    func report(_ text: String) {
        var text = text
        text.withUTF8 { try? writeAll(fd: errorFD, UnsafeRawBufferPointer($0), target: "stderr") }
    }
}
