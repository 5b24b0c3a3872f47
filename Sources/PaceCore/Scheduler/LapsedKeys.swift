// The scheduler's lapsed keys (see the comment below): the timers of a
// policy whose timers only forget, fired when memory or the peak of active
// keys asks, not as time passes. Scheduler.swift calls in here.

extension Scheduler where Keys: ~Copyable, Sink: ~Copyable {
    // A policy whose timer only forgets (`timersOnlyForget`: a throttle's
    // window, a count limit's refill) needs no timer to decide anything, so
    // its timers are not fired as time passes: a key whose timer is past has
    // lapsed, and its next event finds a state that behaves as a fresh one.
    // What the timers still decide is memory and the peak of active keys, so
    // they fire when either asks: when a key becomes active and the count of
    // active keys, lapsed ones included, passes its peak. Firing the lapsed
    // ones then (earliest first, at their due times) makes the count exact,
    // and the peak with it. It can pass the peak at no other moment: a
    // lapsed key that comes back was counted all along. So memory follows
    // the peak of active keys, as with timers fired on time, and a steady
    // set of keys (a few hosts) runs without firing a timer at all.
    //
    // `--count` adds one bound: at most ForgottenCounts' capacity of idle
    // keys have their counts remembered (SPEC). A lapsed key keeps its count
    // in its slot, so while the keys in the table and those remembered after
    // them are within that capacity, no count can have been given up, with
    // timers fired late or on time. Past it, lapsed timers fire before every
    // event, as on time, and the idle keys' counts are bounded as they were.

    /// A key became active at `t` and the count passed `peakBefore`:
    /// forgets the keys lapsed by then, and sets the peak from what is left.
    @inline(never)
    mutating func forgetLapsedKeys(at t: Instant, peakBefore: Int64) throws(OutputError) {
        counters.peakActiveKeys = peakBefore
        try fireLapsedTimers(upTo: t)
        if counters.activeKeys > peakBefore { counters.peakActiveKeys = counters.activeKeys }
    }

    /// Fires the timers due at or before `t`, earliest first (they emit
    /// nothing: no batch to order).
    @inline(never)
    mutating func fireLapsedTimers(upTo t: Instant) throws(OutputError) {
        while let due = keys.timers.firstDue, due <= t { try fire(keys.timers.popFirst(), due: due, stampedAt: nil) }
    }
}
