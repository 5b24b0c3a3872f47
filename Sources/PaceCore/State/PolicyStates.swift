// `--state`: what each policy's state becomes in the state file, and back.
// Pure conversions, no clock and no I/O, like the reducers they belong to.
//
// State: this room holds the state file's format (StateFormat.swift, its
// bytes in StateText.swift), the flags it records (StateFlags.swift), the
// snapshot a save writes (StateSnapshot.swift), the keeper that loads it at
// start and saves it while the run goes on and at exit (StateKeeper.swift),
// and these conversions.
//
// Pending events are not kept (SPEC: they are emitted at exit as ever), so a
// state is saved without them: a debounce holding a line is idle once that
// line is out; a throttle-last or leading-trailing window keeps its end and
// nothing pending. What is left is a window's end or a bucket's A, both
// instants on the live timeline, which is the `--record` clock: the wall
// clock when pace started plus the monotonic time since (Run/Live.swift). So
// a saved instant is already a wall-clock time, and a later run, on a
// timeline of its own, reads it as one.

/// A policy state as the state file keeps it.
package enum SavedState: Equatable, Sendable {
    /// A window open until `end` (throttle, throttle-last, leading,
    /// leading-trailing), with nothing pending.
    case window(end: Instant)
    /// A bucket's A (limit, rate), with nothing waiting.
    case bucket(arrival: ExactInstant)

    /// When the key's timer is due: the window's end, or the instant the
    /// bucket is full again.
    package var timer: Instant {
        switch self {
        case let .window(end): end
        case let .bucket(arrival): arrival.instant
        }
    }
}

/// Throttle first and a leading-edge debounce: the window, as it is.
extension Policy where State == OpenWindow {
    package func saved(_ state: State) -> SavedState? {
        switch state {
        case .idle: nil
        case let .window(end): .window(end: end)
        }
    }

    package func restored(_ saved: SavedState) -> State? {
        guard case let .window(end) = saved else { return nil }
        return .window(end: end)
    }
}

extension ThrottleLast {
    package func saved(_ state: State) -> SavedState? {
        switch state {
        case .idle: nil
        case let .window(end, _): .window(end: end)
        }
    }

    package func restored(_ saved: SavedState) -> State? {
        guard case let .window(end) = saved else { return nil }
        return .window(end: end, latest: nil)
    }
}

extension BatchThrottleLast {
    /// As ThrottleLast: the window's end, without the batch it holds.
    package func saved(_ state: State) -> SavedState? {
        switch state {
        case .idle: nil
        case let .window(end, _, _): .window(end: end)
        }
    }

    package func restored(_ saved: SavedState) -> State? {
        guard case let .window(end) = saved else { return nil }
        return .window(end: end, first: nil, count: 0)
    }
}

extension LeadingTrailing {
    package func saved(_ state: State) -> SavedState? {
        switch state {
        case .idle: nil
        case let .window(end, _): .window(end: end)
        }
    }

    package func restored(_ saved: SavedState) -> State? {
        guard case let .window(end) = saved else { return nil }
        return .window(end: end, pending: nil)
    }
}

extension Debounce {
    /// A debounce is idle once its pending line is out: nothing to keep
    /// (BatchDebounce, its `--batch` form, keeps nothing either).
    package func saved(_ state: State) -> SavedState? { nil }

    package func restored(_ saved: SavedState) -> State? { nil }
}

extension Limit {
    package func saved(_ state: State) -> SavedState? {
        switch state {
        case .full: nil
        case let .refilling(arrival): .bucket(arrival: arrival)
        }
    }

    package func restored(_ saved: SavedState) -> State? {
        guard case let .bucket(arrival) = saved else { return nil }
        return .refilling(arrival: arrival)
    }
}

extension Rate {
    /// A keeps the tokens of the events still waiting, which go out at exit.
    package func saved(_ state: State) -> SavedState? {
        state.arrival.map { .bucket(arrival: $0) }
    }

    package func restored(_ saved: SavedState) -> State? {
        guard case let .bucket(arrival) = saved else { return nil }
        return State(arrival: arrival)
    }
}
