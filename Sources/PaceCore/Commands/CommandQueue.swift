// `--exec`'s scheduling, as a pure state machine: which emitted line's
// command starts when, which is discarded, which running command is sent
// SIGTERM or SIGKILL. It holds line numbers, keys and counts, never bytes or
// processes, and reads no clock: the runner (CommandRunner) carries out the
// effects it returns and tells it when a command has exited. So every rule of
// SPEC's Commands section is unit-tested here without a process.
//
// The rules:
// - at most one command per key, at most `jobs` at once;
// - when a slot frees, the earliest emitted waiting line whose key has no
//   command running starts (a busy key's waiting line holds back no one);
// - `--on-busy` decides what a line does when its key's command is running or
//   a line of its key is waiting: queue, drop, or restart (SIGTERM to the
//   running one, the waiting one discarded, the new line waits for the old
//   command to exit);
// - a command sent SIGTERM is sent SIGKILL `killAfter` later if its group
//   still has a process;
// - shutdown (a signal, or a command that could not be started): nothing new
//   starts, waiting lines are discarded, running ones are signalled (signal
//   only) and waited for.
//
// When a command is over (SPEC: Commands). Every command leads a process
// group of its own, and pace signals the whole group. A command has finished
// when its shell has exited, unless pace signalled it: a command sent
// SIGTERM (by restart or shutdown) is gone only once its group is empty or
// has been sent SIGKILL, so that a restarted `make` never builds beside the
// compilers of the one it replaced. Until then it keeps its key and its slot
// ("lingering"), its kill timer stands, and the runner is asked to look at
// its group again (`.checkGroup`) after 1 ms, 2 ms, 4 ms... (at most every
// `longestGroupCheck`): the kernel tells nobody when a group empties, and
// this backoff finds a group that empties at once (the usual case: every
// process got the SIGTERM together) within a millisecond or two, while one
// that ignores SIGTERM costs a few looks a second until its SIGKILL.
//
// Memory. A key's waiting lines are a FIFO (Storage/FIFO) mutated in place
// (never copied out of the table and back, which made a backlog of one key
// quadratic), the number waiting is kept as a count, and the FIFOs and the
// tables give their space back as a backlog drains.
//
// Counts: a line discarded here carries its count (itself plus what its
// policy discarded before it) over to the next line of its key that is
// submitted, as `--count` does for the policy's own discards.

package struct CommandQueue<Key: Hashable> {
    package let jobs: Int
    package let onBusy: OnBusy
    package let killAfter: Nanoseconds

    /// The first look at a lingering group comes this long after its shell
    /// exited; each next one twice as long after the last, up to
    /// `longestGroupCheck`.
    package static var firstGroupCheck: Nanoseconds { 1_000_000 }
    package static var longestGroupCheck: Nanoseconds { 250_000_000 }

    var keys: [Key: KeyState] = [:]
    var running: [EventNumber: Running] = [:]
    /// Lines waiting, all keys together.
    package internal(set) var waitingCount = 0
    /// Keys whose first waiting line may start, by that line's order. Entries
    /// go stale (the key started, or its line was replaced) and are skipped
    /// when popped: each is checked against `keys`. While every slot is
    /// busy nothing is popped, and `restart` replacing a waiting line leaves
    /// one stale entry per line: the heap is rebuilt from `keys` once it
    /// holds more than twice as many entries as there are keys.
    var ready = IndexedHeap<ReadyKey<Key>>()
    /// SIGTERMed commands and when they get SIGKILL, in the order sent:
    /// `now` never goes back, so the deadlines are in order too. Entries of
    /// commands that are gone or killed are taken off the front at the end
    /// of every action, so the first is the next SIGKILL due.
    var killTimers = FIFO<(due: Instant, line: EventNumber)>()
    /// Counts carried by lines discarded here, owed to each key's next line.
    var owed: [Key: Int64] = [:]
    var nextOrder: UInt64 = 0
    var inputEnded = false
    var stopped = false
    var finishedReported = false
    package internal(set) var stats = CommandQueueStats()

    package init(jobs: Int, onBusy: OnBusy, killAfter: Nanoseconds) {
        precondition(jobs >= 1 && killAfter > 0, "CommandQueue: jobs \(jobs), kill-after \(killAfter)")
        self.jobs = jobs
        self.onBusy = onBusy
        self.killAfter = killAfter
    }

    /// Commands running now (SIGTERMed ones included, until they are gone).
    package var runningCount: Int { running.count }
    /// Input has ended and no command runs or waits.
    package var isFinished: Bool { inputEnded && running.isEmpty && keys.isEmpty }
    /// Whether shutdown (or a start failure) stopped new starts.
    package var isStopped: Bool { stopped }

    /// The earliest SIGKILL due, if a SIGTERMed command is not gone yet.
    package var nextKillDeadline: Instant? { killTimers.first?.due }

    /// The earliest timer: a SIGKILL or a look at a lingering group.
    package var nextDeadline: Instant? {
        var next = nextKillDeadline
        for command in running.values {
            if let check = command.groupCheck, next.map({ check.due < $0 }) ?? true { next = check.due }
        }
        return next
    }

    package mutating func reduce(_ action: CommandAction<Key>) -> [CommandEffect<Key>] {
        var effects: [CommandEffect<Key>] = []
        switch action {
        case let .submit(line, key, count, now, origin):
            // After shutdown a line is only discarded, whenever it comes.
            precondition(!inputEnded || stopped, "CommandQueue: line \(line) submitted after end of input")
            submit(line, key: key, count: count, now: now, origin: origin, into: &effects)
        case let .exited(line, groupRemains, now):
            guard let command = running[line], command.groupCheck == nil else {
                preconditionFailure("CommandQueue: exit of line \(line), which has no shell running")
            }
            if groupRemains && command.terminated && !command.killed {
                let due = now.saturatingAdd(Self.firstGroupCheck)
                running[line]!.groupCheck = (due, Self.firstGroupCheck)
                effects.append(.armGroupCheck(at: due))
            } else {
                gone(line)
                startWaiting(into: &effects)
            }
        case let .groupEmptied(line):
            guard running[line]?.groupCheck != nil else {
                preconditionFailure("CommandQueue: group of line \(line) emptied, but it was not lingering")
            }
            gone(line)
            startWaiting(into: &effects)
        case let .couldNotStart(line):
            notStarted(line, .couldNotStart, into: &effects)
            stop(signalling: false, now: 0, into: &effects)
        case let .withdrawn(line):
            notStarted(line, .shutdown, into: &effects)
        case let .timerFired(now):
            while let first = killTimers.first, first.due <= now {
                _ = killTimers.removeFirst()
                guard let command = running[first.line], !command.killed else { continue }
                running[first.line]!.killed = true
                effects.append(.kill(first.line))
                // SPEC: a command is gone once its group has been sent
                // SIGKILL; a shell still running is waited for.
                if command.groupCheck != nil { gone(first.line) }
            }
            for line in running.keys.sorted() {
                guard let check = running[line]!.groupCheck, check.due <= now else { continue }
                let interval = min(check.interval * 2, Self.longestGroupCheck)
                running[line]!.groupCheck = (now.saturatingAdd(interval), interval)
                effects.append(.checkGroup(line))
            }
            startWaiting(into: &effects)
        case .endOfInput:
            inputEnded = true
        case let .shutdown(now):
            stop(signalling: true, now: now, into: &effects)
        case .killAll:
            stop(signalling: false, now: 0, into: &effects)
            for line in running.keys.sorted() where !running[line]!.killed {
                running[line]!.killed = true
                effects.append(.kill(line))
                if running[line]!.groupCheck != nil { gone(line) }
            }
        }
        while let first = killTimers.first, running[first.line].map({ $0.killed }) ?? true {
            _ = killTimers.removeFirst()
        }
        if isFinished && !finishedReported {
            finishedReported = true
            effects.append(.finished)
        }
        return effects
    }

    // MARK: - Rules

    private mutating func submit(_ line: EventNumber, key: Key, count: Int64, now: Instant, origin: LineOrigin,
                                 into effects: inout [CommandEffect<Key>]) {
        if stopped {
            discard(line, key: key, count: count, .shutdown, into: &effects)
            return
        }
        // The key's state is read and changed where it lies in the table:
        // a copy taken out and put back would copy its waiting lines too.
        let current = keys[key]?.running
        let busy = current != nil || keys[key].map { !$0.waiting.isEmpty } ?? false
        if busy && origin.discardable {
            switch onBusy {
            case .queue:
                break
            case .drop:
                discard(line, key: key, count: count, .busy, into: &effects)
                return
            case .restart:
                // At most one line waits per key under restart: each new one
                // replaces it.
                var kept: [Waiting] = []
                while let replaced = takeFirstWaiting(of: key) {
                    // A resolved or exempt line stays, in its place.
                    if !replaced.origin.discardable {
                        kept.append(replaced)
                        continue
                    }
                    owed[key, default: 0] += replaced.count
                    stats.notRun += 1
                    effects.append(.discard(replaced.line, .replaced))
                }
                for waiting in kept {
                    keys[key]!.waiting.append(waiting)
                    waitingCount += 1
                }
                // A free key's first waiting line changed: its ready entry
                // is stale now, and the kept line needs one of its own.
                if current == nil, let first = kept.first { ready.insert(ReadyKey(order: first.order, key: key)) }
                if let current, !running[current]!.terminated {
                    running[current]!.terminated = true
                    stats.restarted += 1
                    effects.append(.terminate(current))
                    armKillTimer(current, now: now, into: &effects)
                }
            }
        }
        var total = count
        if origin.takesOwed, let carried = owed.removeValue(forKey: key) {
            total += carried
            owed.releaseSpareCapacity()
        }
        let order = nextOrder
        nextOrder += 1
        keys[key, default: KeyState()].waiting.append(Waiting(line: line, count: total, order: order,
                                                              origin: origin))
        waitingCount += 1
        if current == nil && keys[key]!.waiting.count == 1 {
            ready.insert(ReadyKey(order: order, key: key))
            if ready.count > 2 * keys.count + 64 { rebuildReady() }
        }
        startWaiting(into: &effects)
    }

    /// Takes the first waiting line of `key` out, in place.
    mutating func takeFirstWaiting(of key: Key) -> Waiting? {
        guard let index = keys.index(forKey: key), !keys.values[index].waiting.isEmpty else { return nil }
        waitingCount -= 1
        return keys.values[index].waiting.removeFirst()
    }

    /// Line `line`'s command, which the queue started, never ran: its line
    /// is discarded, its slot and its key are free.
    private mutating func notStarted(_ line: EventNumber, _ why: CommandDiscard,
                                     into effects: inout [CommandEffect<Key>]) {
        guard let command = running.removeValue(forKey: line) else {
            preconditionFailure("CommandQueue: line \(line) did not start, but was not starting")
        }
        stats.started -= 1
        keys[command.key]!.running = nil
        discard(line, key: command.key, count: 0, why, into: &effects)
        becameFree(command.key)
    }

    /// Line `line`'s command is over: its slot and its key are free.
    private mutating func gone(_ line: EventNumber) {
        let command = running.removeValue(forKey: line)!
        keys[command.key]!.running = nil
        becameFree(command.key)
        running.releaseSpareCapacity()
    }

    /// A key whose command is gone (or never started): its next waiting line
    /// may start, or the key is forgotten.
    private mutating func becameFree(_ key: Key) {
        guard let first = keys[key]!.waiting.first else {
            keys[key] = nil
            keys.releaseSpareCapacity()
            return
        }
        ready.insert(ReadyKey(order: first.order, key: key))
    }

    /// The ready heap without its stale entries: one per free key that has
    /// a line waiting.
    private mutating func rebuildReady() {
        ready = IndexedHeap()
        for (key, state) in keys where state.running == nil {
            if let first = state.waiting.first { ready.insert(ReadyKey(order: first.order, key: key)) }
        }
    }

    /// Fills free slots with the earliest waiting lines of free keys.
    private mutating func startWaiting(into effects: inout [CommandEffect<Key>]) {
        guard !stopped else { return }
        while running.count < jobs, !ready.isEmpty {
            let next = ready.removeFirst()
            let key = next.key
            guard let index = keys.index(forKey: key), keys.values[index].running == nil,
                  keys.values[index].waiting.first?.order == next.order else {
                continue  // stale
            }
            let first = keys.values[index].waiting.removeFirst()
            waitingCount -= 1
            keys.values[index].running = first.line
            running[first.line] = Running(key: key)
            stats.started += 1
            effects.append(.start(first.line, key: key, count: first.count))
        }
    }

}
