// Trailing debounce with `--batch N`: an event that would replace the
// pending one joins it instead, so up to N events wait together, and the
// timer emits them all, oldest first, as one batch. The N-th pending event
// sends the batch out at once, at its time, as if the timer had fired then:
// nothing is pending afterwards and `--max-wait`'s first event starts afresh.
//
// The state keeps the batch's first event and its size; the scheduler keeps
// the events' bytes (HeldLines), in input order.

package struct BatchDebounce<Payload: Equatable>: Policy {
    package enum State: Equatable {
        /// Nothing pending; the timer is not set.
        case idle
        /// `count` events wait, `first` the oldest, until `deadline`;
        /// `runStart` is the first one's time; `byMaxWait`: the deadline is
        /// `--max-wait`'s, not the quiet time's.
        case pending(first: Payload, count: Int32, runStart: Instant, deadline: Instant, byMaxWait: Bool)
    }

    package let debounce: Debounce<Payload>
    /// N: the most events pending together.
    package let limit: Int32

    package init(window: Nanoseconds, maxWait: Nanoseconds? = nil, limit: Int32) {
        precondition(limit > 0, "BatchDebounce: the batch size must be positive")
        debounce = Debounce(window: window, maxWait: maxWait)
        self.limit = limit
    }

    package var initialState: State { .idle }

    package static var batches: Bool { true }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch (state, action) {
        case let (.idle, .event(event, t)):
            guard limit > 1 else {
                return Effects(emit: event, hold: true, idle: true, batch: BatchRelease(size: 1, why: .full))
            }
            let (deadline, byMaxWait) = deadline(eventAt: t, runStart: t)
            state = .pending(first: event, count: 1, runStart: t, deadline: deadline, byMaxWait: byMaxWait)
            return Effects(schedule: deadline, hold: true)

        case let (.pending(first, count, runStart, _, _), .event(_, t)):
            guard count + 1 < limit else {
                state = .idle
                return Effects(emit: first, hold: true, idle: true, batch: BatchRelease(size: count + 1, why: .full))
            }
            let (deadline, byMaxWait) = deadline(eventAt: t, runStart: runStart)
            state = .pending(first: first, count: count + 1, runStart: runStart, deadline: deadline,
                             byMaxWait: byMaxWait)
            return Effects(schedule: deadline, hold: true)

        case let (.pending(first, count, _, _, byMaxWait), .timerFired):
            state = .idle
            return Effects(emit: first, idle: true, batch: BatchRelease(size: count, why: byMaxWait ? .maxWait : .quiet))

        case (.idle, .timerFired):
            preconditionFailure("BatchDebounce: timer fired in state idle")
        }
    }

    /// The debounce's deadline, and whether `--max-wait` set it (a tie is
    /// the quiet time's).
    @inline(__always)
    func deadline(eventAt t: Instant, runStart: Instant) -> (Instant, byMaxWait: Bool) {
        let deadline = debounce.deadline(eventAt: t, runStart: runStart)
        return (deadline, deadline < t.saturatingAdd(debounce.window))
    }
}
