// `--state`: what the scheduler keeps of its keys, copied out for a save and
// put back at start. Only the keeper (State/StateKeeper.swift) calls these,
// once at start, once a minute at most and at exit: nothing here is on the
// per-line path.

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable {
    /// A copy of every key's saved state and what it owes, at `now`. A
    /// state whose window ended by `now` is idle (a lapsed key: see
    /// "Lapsed keys"). A key's held line counts as owed when
    /// `heldLinesOwed` (it may never be written: a periodic save, or a run
    /// that ends without writing it); otherwise it is about to go out,
    /// with the key's count, which it takes. An open episode is saved with
    /// its T: armed, or, when its key holds lines that go out at `now`
    /// (SPEC State), max(t + Q, now).
    package func snapshot(at now: Instant, heldLinesOwed: Bool) -> StateSnapshot {
        var snapshot = StateSnapshot()
        snapshot.reserve(keys.heldKeys)
        var open: [(number: EventNumber, slot: Int32, state: SavedState?, owed: Int64, resolveAt: Instant)] = []
        keys.forEachKey { slot, key, idle in
            var owed = sink.owed(slot: slot)
            // A line whose write failed counts as emitted (`--stats`), not
            // as held.
            let holds = held.first(slot) != nil && slot != writingHeld
            if holds { owed = heldLinesOwed ? owed + 1 : 0 }
            var state = idle ? nil : policy.saved(keys[state: slot])
            if let saved = state, saved.timer <= now { state = nil }
            if marks,
               let resolveAt = episodes.savedResolution(slot, holding: holds, goingOut: !heldLinesOwed, at: now) {
                open.append((episodes.lastLines.first(slot)!, slot, state, owed, resolveAt))
            } else if state != nil || owed > 0 {
                snapshot.append(key: key, state: state, owed: owed)
            }
        }
        // Keys with an open episode last, in the order of their last events:
        // a later run resolves those of one T in that order.
        open.sort { $0.number < $1.number }
        for (_, slot, state, owed, resolveAt) in open {
            snapshot.append(key: keys.key(of: slot), state: state, owed: owed,
                            episode: (resolveAt, episodes.lastLines.firstLine(slot)))
        }
        sink.forEachForgotten { key, owed in snapshot.append(key: key, state: nil, owed: owed) }
        return snapshot
    }

    /// Adds to `snapshot` what `--exec`'s commands owe the keys: the counts
    /// of lines they never ran, and with `includingWaiting` of those still
    /// waiting (a save they may never follow, or a signal's end, whose
    /// shutdown discards them). Nothing for any other sink.
    package func addOwedByCommands(to snapshot: inout StateSnapshot, includingWaiting: Bool) {
        var extra: [[UInt8]: Int64] = [:]
        sink.forEachOwedByCommands(includingWaiting: includingWaiting) { key, count in
            extra[Array(key), default: 0] += count
        }
        if !extra.isEmpty { snapshot.addOwed(extra) }
    }

    /// Puts `snapshot`'s keys back at the start of a run at `now`: a state
    /// whose window ended by then is idle and is not loaded (a key that
    /// owes is remembered with its count, as a forgotten key is).
    package mutating func load(_ snapshot: StateSnapshot, at now: Instant) {
        for index in 0..<snapshot.count {
            var state: P.State?
            var due: Instant?
            if let saved = snapshot.states[index], var restored = policy.restored(saved) {
                (state, due) = (restored, saved.timer)
                // The timers that came due while pace was down fire now, in
                // order, as they would have at their times: they only end
                // windows (a saved state holds no line).
                while let timer = due, timer <= now {
                    let effects = policy.reduce(into: &restored, .timerFired(at: timer))
                    due = effects.schedule
                    state = effects.idle ? nil : restored
                    if effects.idle { break }
                }
            }
            let owed = snapshot.owed[index]
            let episode = marks ? snapshot.episodes[index] : nil
            snapshot.withKey(index) { key in
                guard state != nil || episode != nil else {
                    guard owed > 0 else { return }
                    if Keys.isKeyed {
                        sink.rememberForgotten(key, hash: hashBytes(key), owed: owed)
                    } else {
                        sink.setOwed(slot: 0, owed)
                    }
                    return
                }
                let found = keys.slot(for: key, counters: &counters)
                if Keys.isKeyed && Sink.counts && found.joined {
                    sink.keyJoined(slot: found.slot, key: key, hash: found.hash, keysInTable: found.keysInTable)
                }
                // The observer counts the key at its first event of the run.
                if Keys.isKeyed && Observer.isActive && found.joined { unseenLoadedKeys.insert(found.slot) }
                if let state { keys[state: found.slot] = state }
                if let due { keys.timers.set(slot: found.slot, due: due) }
                sink.setOwed(slot: found.slot, owed)
                // An open episode goes on: resolved at its T (at once, by
                // `resolveOverdueEpisodes`, when T has passed). A T past
                // now + Q (a wall clock set back) is now + Q: a key's T
                // only grows while its episode is open (Episodes.swift).
                if let episode {
                    let resolveAt = min(episode.resolveAt, now.saturatingAdd(episodes.quiet))
                    snapshot.withEpisodeLine(index) { line in
                        // Numbered in the file's order (their keys' last
                        // events'): those of one T resolve in it.
                        episodes.reopen(found.slot, lastLine: line, number: savedLineNumbers + EventNumber(index),
                                        resolveAt: resolveAt, policyIdle: state == nil)
                    }
                }
            }
        }
    }

    /// Events handed to the policy so far: the keeper saves only when this
    /// moved (nothing changed otherwise).
    package var eventsSeen: Int64 { counters.eventsIn }
}
