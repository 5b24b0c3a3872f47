// Throttle, latest, with `--batch N`: as ThrottleLast, but the events inside
// a window join the pending ones instead of replacing them, so up to N wait
// together and the window's end emits them all, oldest first, as one batch
// (which opens the next window). The N-th pending event sends the batch out
// at once, at its time, as if the window had ended then: a new window
// [t, t + D) opens.
//
// The state keeps the batch's first event and its size; the scheduler keeps
// the events' bytes (HeldLines), in input order.

package struct BatchThrottleLast<Payload: Equatable>: Policy {
    package enum State: Equatable {
        /// No window open: the next event is emitted.
        case idle
        /// A window is open until `end`; `count` events wait, `first` the
        /// oldest (nil when none), to go out when it ends.
        case window(end: Instant, first: Payload?, count: Int32)
    }

    package let window: Nanoseconds
    /// N: the most events pending together.
    package let limit: Int32

    package init(window: Nanoseconds, limit: Int32) {
        precondition(window > 0, "BatchThrottleLast: the window must be positive")
        precondition(limit > 0, "BatchThrottleLast: the batch size must be positive")
        self.window = window
        self.limit = limit
    }

    package var initialState: State { .idle }

    package static var batches: Bool { true }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch (state, action) {
        case let (.idle, .event(event, t)):
            let end = t.saturatingAdd(window)
            state = .window(end: end, first: nil, count: 0)
            return Effects(emit: event, schedule: end)

        case let (.window(end, first, count), .event(event, t)):
            // As in ThrottleLast, the scheduler fires the window's timer
            // before an event at or after `end`.
            guard t >= end else {
                guard count + 1 < limit else {
                    let newEnd = t.saturatingAdd(window)
                    state = .window(end: newEnd, first: nil, count: 0)
                    return Effects(emit: first ?? event, schedule: newEnd, hold: true,
                                   batch: BatchRelease(size: count + 1, why: .full))
                }
                state = .window(end: end, first: first ?? event, count: count + 1)
                return Effects(hold: true)
            }
            if first != nil {
                preconditionFailure("BatchThrottleLast: event after the window's end with events still pending")
            }
            let newEnd = t.saturatingAdd(window)
            state = .window(end: newEnd, first: nil, count: 0)
            return Effects(emit: event, schedule: newEnd)

        case let (.window(end, first, count), .timerFired):
            guard let first else {
                state = .idle
                return .becameIdle
            }
            let newEnd = end.saturatingAdd(window)
            state = .window(end: newEnd, first: nil, count: 0)
            return Effects(emit: first, schedule: newEnd, batch: BatchRelease(size: count, why: .windowEnd))

        case (.idle, .timerFired):
            preconditionFailure("BatchThrottleLast: timer fired in state idle")
        }
    }
}
