// Leading-edge debounce: the first event of a burst goes out at once, and the
// burst lasts until the window has passed in silence. Every event, emitted or
// not, pushes the window's end to t + D.
//
// The timer is not needed to decide anything (an event compares its time with
// the window's end): it closes the window so that a keyed run can forget the
// key. It only forgets, so the runtime fires it late, when it wants the key's
// memory (`timersOnlyForget`), and the state may hold a window that is over.

package struct Leading<Payload: Equatable>: Policy {
    /// A window is a burst: it lasts until the window has passed in silence.
    package typealias State = OpenWindow

    package let window: Nanoseconds

    package init(window: Nanoseconds) {
        precondition(window > 0, "Leading: the window must be positive")
        self.window = window
    }

    package var initialState: State { .idle }

    /// The timer only closes the window: an event at or after its end
    /// starts the next burst itself.
    package static var timersOnlyForget: Bool { true }

    @inline(__always)
    package func reduce(into state: inout State, _ action: PolicyAction<Payload>) -> Effects<Payload> {
        switch (state, action) {
        case let (.idle, .event(event, t)):
            let end = t.saturatingAdd(window)
            state = .window(end: end)
            return Effects(emit: event, schedule: end)

        case let (.window(end), .event(event, t)):
            let newEnd = t.saturatingAdd(window)
            state = .window(end: newEnd)
            // SPEC: emitted if t >= the window's end. The window's timer may
            // not have fired by then (it only forgets): the reducer decides
            // on its own.
            if t >= end { return Effects(emit: event, schedule: newEnd) }
            return Effects(schedule: newEnd, discarded: event)

        case (.window, .timerFired):
            state = .idle
            return .becameIdle

        case (.idle, .timerFired):
            preconditionFailure("Leading: timer fired in state idle")
        }
    }
}
