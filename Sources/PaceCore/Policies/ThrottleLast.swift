// Throttle, latest: an event goes out at once when no window is open, and
// opens a window [t, t + D). Inside it only the latest event is remembered.
// When the window ends at E, the remembered event (if any) goes out at E and
// opens the next window [E, E + D): a steady stream yields one line per D.

package struct ThrottleLast<Payload: Equatable>: Policy {
    package enum State: Equatable {
        /// No window open: the next event is emitted.
        case idle
        /// A window is open until `end`; `latest` is emitted when it ends.
        case window(end: Instant, latest: Payload?)
    }

    package let window: Nanoseconds

    package init(window: Nanoseconds) {
        precondition(window > 0, "ThrottleLast: the window must be positive")
        self.window = window
    }

    package var initialState: State { .idle }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch (state, action) {
        case let (.idle, .event(event, t)):
            let end = t.saturatingAdd(window)
            state = .window(end: end, latest: nil)
            return Effects(emit: event, schedule: end)

        case let (.window(end, latest), .event(event, t)):
            // The scheduler fires the window's timer before an event at or
            // after `end`; the reducer stays correct on its own by closing
            // the window as the timer would have, then taking the event.
            guard t >= end else {
                state = .window(end: end, latest: event)
                return Effects(discarded: latest, hold: true)
            }
            if latest != nil {
                preconditionFailure("ThrottleLast: event after the window's end with an event still pending")
            }
            let newEnd = t.saturatingAdd(window)
            state = .window(end: newEnd, latest: nil)
            return Effects(emit: event, schedule: newEnd)

        case let (.window(end, latest), .timerFired):
            guard let latest else {
                state = .idle
                return .becameIdle
            }
            let newEnd = end.saturatingAdd(window)
            state = .window(end: newEnd, latest: nil)
            return Effects(emit: latest, schedule: newEnd)

        case (.idle, .timerFired):
            preconditionFailure("ThrottleLast: timer fired in state idle")
        }
    }
}
