// CommandQueue's discards and its stop: a line thrown away (with what it
// owes), a SIGKILL armed after a SIGTERM, and shutdown (input ended by a
// signal, or a command that could not start). The rules that call these
// are in CommandQueue.swift.

extension CommandQueue {
    mutating func discard(_ line: EventNumber, key: Key, count: Int64, _ why: CommandDiscard,
                                  into effects: inout [CommandEffect<Key>]) {
        owed[key, default: 0] += count
        stats.notRun += 1
        effects.append(.discard(line, why))
    }

    mutating func armKillTimer(_ line: EventNumber, now: Instant, into effects: inout [CommandEffect<Key>]) {
        let due = now.saturatingAdd(killAfter)
        killTimers.append((due, line))
        effects.append(.armKillTimer(at: due))
    }

    /// Nothing new starts; waiting lines are discarded in the order they
    /// were submitted; running commands are sent SIGTERM if `signalling`.
    mutating func stop(signalling: Bool, now: Instant, into effects: inout [CommandEffect<Key>]) {
        stopped = true
        var leftOver: [(Waiting, Key)] = []
        for key in Array(keys.keys) {
            while let waiting = takeFirstWaiting(of: key) { leftOver.append((waiting, key)) }
            if keys[key]!.running == nil { keys[key] = nil }
        }
        leftOver.sort { $0.0.order < $1.0.order }
        for (waiting, key) in leftOver {
            discard(waiting.line, key: key, count: waiting.count, .shutdown, into: &effects)
        }
        ready = IndexedHeap()
        guard signalling else { return }
        for line in running.keys.sorted() where !running[line]!.terminated {
            running[line]!.terminated = true
            effects.append(.terminate(line))
            armKillTimer(line, now: now, into: &effects)
        }
    }

    /// What each key is owed for lines never run (`--on-busy drop`, a
    /// shutdown), with `includingWaiting` the counts of its waiting lines
    /// too (what a shutdown now would discard); keys owed 0 are left out.
    package func forEachOwed(includingWaiting: Bool, _ body: (Key, Int64) -> Void) {
        var totals = owed
        if includingWaiting {
            for (key, state) in keys {
                state.waiting.withWaiting { lines in
                    for line in lines { totals[key, default: 0] += line.count }
                }
            }
        }
        for (key, count) in totals where count > 0 { body(key, count) }
    }
}
