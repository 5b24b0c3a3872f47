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
// - a command sent SIGTERM is sent SIGKILL `killAfter` later if it still runs;
// - shutdown (a signal, or a command that could not be started): nothing new
//   starts, waiting lines are discarded, running ones are signalled (signal
//   only) and waited for.
//
// Counts: a line discarded here carries its count (itself plus what its
// policy discarded before it) over to the next line of its key that is
// submitted, as `--count` does for the policy's own discards.

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
    /// Send SIGTERM to line `line`'s command.
    case terminate(EventNumber)
    /// Send SIGKILL to line `line`'s command.
    case kill(EventNumber)
    /// Line `line`'s command will never run (`--dropped` gets it).
    case discard(EventNumber, CommandDiscard)
    /// Wake up at this instant and send `.killTimerFired` (`nextKillDeadline`
    /// says the same at any time).
    case armKillTimer(at: Instant)
    /// Input has ended and every command has exited: pace may exit.
    case finished
}

/// What happens to the queue.
package enum CommandAction<Key: Hashable>: Equatable {
    /// An emitted line, with its count, at `now` (a restart's SIGTERM arms a
    /// kill timer from it).
    case submit(EventNumber, key: Key, count: Int64, now: Instant)
    /// Line `line`'s command has exited (for whatever reason).
    case exited(EventNumber)
    /// The runner could not start line `line`'s command: pace stops as at
    /// shutdown, but the commands already running are left to finish.
    case couldNotStart(EventNumber)
    /// A kill timer is due (any instant at or after `nextKillDeadline`).
    case killTimerFired(now: Instant)
    /// No more lines will be submitted.
    case endOfInput
    /// SIGINT or SIGTERM: nothing new starts; running commands get SIGTERM.
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

package struct CommandQueue<Key: Hashable> {
    package let jobs: Int
    package let onBusy: OnBusy
    package let killAfter: Nanoseconds

    private struct Waiting {
        var line: EventNumber
        var count: Int64
        /// Submission order, across keys.
        var order: UInt64
    }

    /// A key with a command running or lines waiting (forgotten otherwise).
    private struct KeyState {
        var running: EventNumber?
        /// Its waiting lines, in submission order, from `head` on.
        var waiting: [Waiting] = []
        var head = 0

        var first: Waiting? { head < waiting.count ? waiting[head] : nil }
        var waitingCount: Int { waiting.count - head }

        mutating func popFirst() -> Waiting {
            let first = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 32 && head * 2 >= waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return first
        }
    }

    private struct Running {
        var key: Key
        var terminated = false
        var killed = false
    }

    private var keys: [Key: KeyState] = [:]
    private var running: [EventNumber: Running] = [:]
    /// Keys whose first waiting line may start, by that line's order. Entries
    /// go stale (the key started, or its line was replaced) and are skipped
    /// when popped: each is checked against `keys`.
    private var ready = ReadyHeap<Key>()
    /// SIGTERMed commands and when they get SIGKILL, in the order sent:
    /// `now` never goes back, so the deadlines are in order too.
    private var killTimers: [(due: Instant, line: EventNumber)] = []
    private var killTimersHead = 0
    /// Counts carried by lines discarded here, owed to each key's next line.
    private var owed: [Key: Int64] = [:]
    private var nextOrder: UInt64 = 0
    private var inputEnded = false
    private var stopped = false
    private var finishedReported = false
    package private(set) var stats = CommandQueueStats()

    package init(jobs: Int, onBusy: OnBusy, killAfter: Nanoseconds) {
        precondition(jobs >= 1 && killAfter > 0, "CommandQueue: jobs \(jobs), kill-after \(killAfter)")
        self.jobs = jobs
        self.onBusy = onBusy
        self.killAfter = killAfter
    }

    /// Commands running now (SIGTERMed ones included, until they exit).
    package var runningCount: Int { running.count }
    /// Lines waiting for their turn.
    package var waitingCount: Int { keys.values.reduce(0) { $0 + $1.waitingCount } }
    /// Input has ended and no command runs or waits.
    package var isFinished: Bool { inputEnded && running.isEmpty && keys.isEmpty }
    /// Whether shutdown (or a start failure) stopped new starts.
    package var isStopped: Bool { stopped }

    /// The earliest SIGKILL due, if a SIGTERMed command still runs.
    package var nextKillDeadline: Instant? {
        var i = killTimersHead
        while i < killTimers.count {
            if let command = running[killTimers[i].line], !command.killed { return killTimers[i].due }
            i += 1
        }
        return nil
    }

    package mutating func reduce(_ action: CommandAction<Key>) -> [CommandEffect<Key>] {
        var effects: [CommandEffect<Key>] = []
        switch action {
        case let .submit(line, key, count, now):
            // After shutdown a line is only discarded, whenever it comes.
            precondition(!inputEnded || stopped, "CommandQueue: line \(line) submitted after end of input")
            submit(line, key: key, count: count, now: now, into: &effects)
        case let .exited(line):
            guard let command = running.removeValue(forKey: line) else {
                preconditionFailure("CommandQueue: exit of line \(line), which has no command running")
            }
            keys[command.key]!.running = nil
            becameFree(command.key)
            startWaiting(into: &effects)
        case let .couldNotStart(line):
            guard let command = running.removeValue(forKey: line) else {
                preconditionFailure("CommandQueue: line \(line) could not start, but was not starting")
            }
            stats.started -= 1
            keys[command.key]!.running = nil
            discard(line, key: command.key, count: 0, .couldNotStart, into: &effects)
            becameFree(command.key)
            stop(signalling: false, now: 0, into: &effects)
        case let .killTimerFired(now):
            while killTimersHead < killTimers.count, killTimers[killTimersHead].due <= now {
                let line = killTimers[killTimersHead].line
                killTimersHead += 1
                if let command = running[line], !command.killed {
                    running[line]!.killed = true
                    effects.append(.kill(line))
                }
            }
            if killTimersHead == killTimers.count {
                killTimers.removeAll(keepingCapacity: true)
                killTimersHead = 0
            }
        case .endOfInput:
            inputEnded = true
        case let .shutdown(now):
            stop(signalling: true, now: now, into: &effects)
        case .killAll:
            stop(signalling: false, now: 0, into: &effects)
            for line in running.keys.sorted() where !running[line]!.killed {
                running[line]!.killed = true
                effects.append(.kill(line))
            }
        }
        if isFinished && !finishedReported {
            finishedReported = true
            effects.append(.finished)
        }
        return effects
    }

    // MARK: - Rules

    private mutating func submit(_ line: EventNumber, key: Key, count: Int64, now: Instant,
                                 into effects: inout [CommandEffect<Key>]) {
        if stopped {
            discard(line, key: key, count: count, .shutdown, into: &effects)
            return
        }
        var state = keys[key] ?? KeyState()
        let busy = state.running != nil || state.waitingCount > 0
        if busy {
            switch onBusy {
            case .queue:
                break
            case .drop:
                keys[key] = state
                discard(line, key: key, count: count, .busy, into: &effects)
                return
            case .restart:
                // At most one line waits per key under restart: each new one
                // replaces it.
                while state.waitingCount > 0 {
                    let replaced = state.popFirst()
                    owed[key, default: 0] += replaced.count
                    stats.notRun += 1
                    effects.append(.discard(replaced.line, .replaced))
                }
                if let current = state.running, !running[current]!.terminated {
                    running[current]!.terminated = true
                    stats.restarted += 1
                    effects.append(.terminate(current))
                    armKillTimer(current, now: now, into: &effects)
                }
            }
        }
        let total = count + (owed.removeValue(forKey: key) ?? 0)
        let order = nextOrder
        nextOrder += 1
        state.waiting.append(Waiting(line: line, count: total, order: order))
        let isFirst = state.waitingCount == 1
        keys[key] = state
        if isFirst && state.running == nil { ready.push(order: order, key: key) }
        startWaiting(into: &effects)
    }

    /// A key whose command exited (or never started): its next waiting line
    /// may start, or the key is forgotten.
    private mutating func becameFree(_ key: Key) {
        guard let first = keys[key]!.first else {
            keys[key] = nil
            return
        }
        ready.push(order: first.order, key: key)
    }

    /// Fills free slots with the earliest waiting lines of free keys.
    private mutating func startWaiting(into effects: inout [CommandEffect<Key>]) {
        guard !stopped else { return }
        while running.count < jobs, let (order, key) = ready.popMin() {
            guard var state = keys[key], state.running == nil, let first = state.first, first.order == order else {
                continue  // stale
            }
            _ = state.popFirst()
            state.running = first.line
            keys[key] = state
            running[first.line] = Running(key: key)
            stats.started += 1
            effects.append(.start(first.line, key: key, count: first.count))
        }
    }

    private mutating func discard(_ line: EventNumber, key: Key, count: Int64, _ why: CommandDiscard,
                                  into effects: inout [CommandEffect<Key>]) {
        owed[key, default: 0] += count
        stats.notRun += 1
        effects.append(.discard(line, why))
    }

    private mutating func armKillTimer(_ line: EventNumber, now: Instant, into effects: inout [CommandEffect<Key>]) {
        let due = now.saturatingAdd(killAfter)
        killTimers.append((due, line))
        effects.append(.armKillTimer(at: due))
    }

    /// Nothing new starts; waiting lines are discarded in the order they
    /// were submitted; running commands are sent SIGTERM if `signalling`.
    private mutating func stop(signalling: Bool, now: Instant, into effects: inout [CommandEffect<Key>]) {
        stopped = true
        var leftOver: [(Waiting, Key)] = []
        for (key, var state) in keys {
            while state.waitingCount > 0 { leftOver.append((state.popFirst(), key)) }
            if state.running == nil { keys[key] = nil } else { keys[key] = state }
        }
        leftOver.sort { $0.0.order < $1.0.order }
        for (waiting, key) in leftOver {
            discard(waiting.line, key: key, count: waiting.count, .shutdown, into: &effects)
        }
        ready = ReadyHeap()
        guard signalling else { return }
        for line in running.keys.sorted() where !running[line]!.terminated {
            running[line]!.terminated = true
            effects.append(.terminate(line))
            armKillTimer(line, now: now, into: &effects)
        }
    }
}

// MARK: - The ready keys

/// A binary min-heap of (order, key): the key whose first waiting line was
/// submitted earliest comes out first. Orders are unique.
private struct ReadyHeap<Key> {
    private var entries: [(order: UInt64, key: Key)] = []

    mutating func push(order: UInt64, key: Key) {
        entries.append((order, key))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].order < entries[parent].order else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> (UInt64, Key)? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < entries.count && entries[left].order < entries[smallest].order { smallest = left }
                if right < entries.count && entries[right].order < entries[smallest].order { smallest = right }
                if smallest == parent { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (first.order, first.key)
    }
}
