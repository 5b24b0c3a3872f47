// Pacing (a shaper), `--rate N/D`: the bucket of `--limit`, but an event that
// finds no token waits for one instead of being dropped. SPEC: each event of
// a key is emitted at e = max(t, A - (B - 1) * I), rounded up to a whole
// nanosecond, and A becomes max(A, e) + I with the unrounded e; a key's events
// go out in input order. Since A - (B - 1) * I <= A, max(A, e) is max(A, t):
// A moves exactly as `--limit`'s does when every event takes a token.
//
// While events wait, each newcomer's e is the last waiting one's e plus I:
// the last one waited, so it arrived before A - (B - 1) * I and A grew by
// exactly I, and the newcomer arrives before the head goes out (its timer
// fires before any later event), so before that e too. The dues of waiting
// events are therefore recomputed, not stored: the state keeps the oldest
// one's exact e and the event numbers in a queue, 8 bytes a waiting event.
//
// One timer per key: the oldest waiting event's due, or, with nothing
// waiting, the instant the bucket is full again (ceil(A)), when the key
// becomes idle as a `--limit` key does.

package struct Rate<Payload: Equatable>: Policy {
    /// A struct rather than an enum of phases so that the queue is mutated
    /// in place: taking it out of an enum case to append would copy it
    /// whole, an O(backlog) cost per event.
    package struct State: Equatable {
        /// A, or nil while the bucket is full (the key is idle).
        package var arrival: ExactInstant?
        /// The events waiting, oldest first.
        package var waiting: FIFO<Payload>
        /// The oldest waiting event's exact emission time (meaningless when
        /// nothing waits).
        package var head: ExactInstant

        package init(arrival: ExactInstant? = nil, waiting: FIFO<Payload> = [], head: ExactInstant = ExactInstant(0)) {
            self.arrival = arrival
            self.waiting = waiting
            self.head = waiting.isEmpty ? ExactInstant(0) : head
        }

        package static func == (a: State, b: State) -> Bool {
            a.arrival == b.arrival && a.waiting == b.waiting && (a.waiting.isEmpty || a.head == b.head)
        }
    }

    package let rate: CellRate

    package init(rate: CellRate) {
        self.rate = rate
    }

    package var initialState: State { State() }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch action {
        case let .event(event, t):
            guard state.waiting.isEmpty else {
                // Behind the backlog: due at the last waiting one's e + I.
                precondition(Int128(t.nanoseconds) < state.head.ceiling,
                             "Rate: event at \(t) while the oldest waiting event was due at \(state.head.instant)")
                state.arrival = rate.taking(at: t, from: state.arrival)
                state.waiting.append(event)
                return Effects(hold: true)
            }
            if let arrival = state.arrival, !rate.hasToken(at: t, arrival: arrival) {
                // e = A - (B - 1) * I, later than t: the event waits.
                state.head = rate.subtractingTolerance(arrival)
                state.arrival = rate.taking(at: t, from: arrival)
                state.waiting.append(event)
                return Effects(schedule: state.head.instant, hold: true)
            }
            let arrival = rate.taking(at: t, from: state.arrival)
            state.arrival = arrival
            return Effects(emit: event, schedule: arrival.instant)

        case let .timerFired(due):
            guard let arrival = state.arrival else {
                preconditionFailure("Rate: timer fired with a full bucket")
            }
            guard state.waiting.isEmpty else {
                let event = state.waiting.removeFirst()
                if state.waiting.isEmpty { return Effects(emit: event, schedule: arrival.instant) }
                state.head = rate.addingInterval(state.head)
                return Effects(emit: event, schedule: state.head.instant)
            }
            // Only an A past the last representable instant is not full by
            // its (pinned) timer; the key then stays as it is, unscheduled.
            guard arrival.ceiling <= Int128(due.nanoseconds) else { return .none }
            state.arrival = nil
            return .becameIdle
        }
    }

    /// Its waiting events go out at their due times after live input ends.
    package static var keepsPaceAfterInput: Bool { true }
}
