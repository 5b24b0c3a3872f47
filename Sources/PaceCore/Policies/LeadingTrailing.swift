// Leading-edge debounce with a trailing edge too (`--leading D --trailing`,
// lodash's `{ leading: true, trailing: true }`): the first event of a burst
// goes out at once, and the burst's last event, if it is not its first, goes
// out when the burst ends, D after that last event.
//
// As with Leading, every event pushes the window's end to t + D. Events inside
// the window replace one another as the pending one, as Debounce's do, so at
// most one event is held. Unlike Leading's, the timer emits, so it must fire
// on time: it is not `timersOnlyForget`. The trailing emission closes the
// window (it opens none, unlike throttle-last's), so the next event starts a
// new burst and goes out at once.

package struct LeadingTrailing<Payload: Equatable>: Policy {
    package enum State: Equatable {
        /// No window open: the next event starts a burst.
        case idle
        /// A burst is on until `end`; `pending` (an event after the burst's
        /// first) is emitted when it ends.
        case window(end: Instant, pending: Payload?)
    }

    package let window: Nanoseconds

    package init(window: Nanoseconds) {
        precondition(window > 0, "LeadingTrailing: the window must be positive")
        self.window = window
    }

    package var initialState: State { .idle }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch (state, action) {
        case let (.idle, .event(event, t)):
            let end = t.saturatingAdd(window)
            state = .window(end: end, pending: nil)
            return Effects(emit: event, schedule: end)

        case let (.window(end, pending), .event(event, t)):
            let newEnd = t.saturatingAdd(window)
            // The scheduler fires the window's timer before an event at or
            // after `end`; the reducer stays correct on its own by taking
            // such an event as a new burst's first, as Leading does. With an
            // event pending, that timer had a line to emit: it cannot have
            // been skipped.
            guard t >= end else {
                state = .window(end: newEnd, pending: event)
                return Effects(schedule: newEnd, discarded: pending, hold: true)
            }
            if pending != nil {
                preconditionFailure("LeadingTrailing: event after the window's end with an event still pending")
            }
            state = .window(end: newEnd, pending: nil)
            return Effects(emit: event, schedule: newEnd)

        case let (.window(_, pending), .timerFired):
            state = .idle
            guard let pending else { return .becameIdle }
            return Effects(emit: pending, idle: true)

        case (.idle, .timerFired):
            preconditionFailure("LeadingTrailing: timer fired in state idle")
        }
    }
}
