// Throttle, first: an event goes out at once when no window is open, and opens
// a window of D; everything inside it is dropped. The window does not move
// while events are dropped. The state remembers the last emission's window.

package struct ThrottleFirst<Payload: Equatable>: Policy {
    /// Events before a window's end are dropped.
    package typealias State = OpenWindow

    package let window: Nanoseconds

    package init(window: Nanoseconds) {
        precondition(window > 0, "ThrottleFirst: the window must be positive")
        self.window = window
    }

    package var initialState: State { .idle }

    /// The timer only closes the window: an event at or after its end opens
    /// the next one itself.
    package static var timersOnlyForget: Bool { true }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch (state, action) {
        case let (.idle, .event(event, t)):
            let end = t.saturatingAdd(window)
            state = .window(end: end)
            return Effects(emit: event, schedule: end)

        case let (.window(end), .event(event, t)):
            // The window's timer may not have fired by an event at or after
            // `end` (it only forgets): that event opens the next window.
            guard t >= end else { return Effects(discarded: event) }
            let newEnd = t.saturatingAdd(window)
            state = .window(end: newEnd)
            return Effects(emit: event, schedule: newEnd)

        case (.window, .timerFired):
            state = .idle
            return .becameIdle

        case (.idle, .timerFired):
            preconditionFailure("ThrottleFirst: timer fired in state idle")
        }
    }
}
