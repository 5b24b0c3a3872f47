// `--rate N/D` (a shaper): the bucket of `--limit`, but a line that finds no
// token waits for one: it goes out at ceil(max(t, A - (B - 1) * I)), a key's
// lines in input order. The reducer value by value, then marble diagrams run
// on the test's ReducerDriver: today's Scheduler keeps one held line per key
// and cannot carry a backlog yet (once it can, these diagrams go through
// `expectMarbles` unchanged).

import PaceCore
import PaceTesting
import Testing

private func rate(_ count: Int64, per period: Nanoseconds, burst: Int64 = 1) -> Rate<EventNumber> {
    Rate(rate: CellRate(count: count, per: period, burst: burst))
}

/// `expectMarbles` on the ReducerDriver: the emissions `input` gives must be
/// exactly those drawn in `output`; after `|` the clock runs on, and without
/// it no timer may be left at the last tick.
private func expectRateMarbles(_ policy: Rate<EventNumber>, keys: MarbleKeys = .unkeyed, tick: Nanoseconds = marbleTick,
                               input: String, output: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let inputDiagram: MarbleDiagram, outputDiagram: MarbleDiagram
    do {
        inputDiagram = try MarbleDiagram(parsing: input, allowEnd: true)
        outputDiagram = try MarbleDiagram(parsing: output, allowEnd: false)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
        return
    }
    var driver = ReducerDriver(policy, keyed: keys.isKeyed)
    var lines: [String] = []
    for step in inputDiagram.steps {
        for event in step.characters {
            driver.send(key: keys.key(of: event), at: Nanoseconds(step.tick) * tick)
            lines.append(String(event))
        }
    }
    if inputDiagram.end != nil {
        driver.finish()
    } else {
        driver.advance(to: Nanoseconds(max(inputDiagram.length, outputDiagram.length) - 1) * tick)
        if !driver.isQuiet { Issue.record("a timer is still pending at the last tick", sourceLocation: sourceLocation) }
    }
    let actual = driver.emissions.map { Emission(time: $0.time, lines[Int($0.event)]) }
    let expected = outputDiagram.emissions(tick: tick)
    if actual != expected {
        Issue.record("emissions differ\n   input: \(input)\nexpected: \(expected)\n  actual: \(actual)",
                     sourceLocation: sourceLocation)
    }
}

@Suite struct RateTests {
    // MARK: - The reducer, value by value

    @Test func reducerBacklogStepByStep() {
        // 1 per 3 ticks, bucket of 1.
        let policy = rate(1, per: 3.ticks)
        var state = policy.initialState
        // a finds the token: out at once; A = 3, the bucket full again then.
        #expect(policy.reduce(into: &state, .event(1, at: 0)) == Effects(emit: 1, schedule: 3.ticks))
        // b waits for A - 0 = 3; A = 6.
        #expect(policy.reduce(into: &state, .event(2, at: tick(1))) == Effects(schedule: 3.ticks))
        #expect(policy.pending(in: state) == 2)
        // c waits behind it (due at 6): the timer stays b's.
        #expect(policy.reduce(into: &state, .event(3, at: tick(2))) == .none)
        #expect(policy.pending(in: state) == 2)
        #expect(policy.backlog(in: state) == 2)
        #expect(state == Rate.State(arrival: ExactInstant(9.ticks), waiting: [2, 3], head: ExactInstant(3.ticks)))
        #expect(policy.reduce(into: &state, .timerFired(at: tick(3))) == Effects(emit: 2, schedule: 6.ticks))
        #expect(policy.pending(in: state) == 3)
        // The last one out: the timer becomes the full bucket's, at A = 9.
        #expect(policy.reduce(into: &state, .timerFired(at: tick(6))) == Effects(emit: 3, schedule: 9.ticks))
        #expect(policy.pending(in: state) == nil)
        #expect(!policy.isIdle(state))
        #expect(policy.reduce(into: &state, .timerFired(at: tick(9))) == .none)
        #expect(policy.isIdle(state))
        #expect(state == policy.initialState)
    }

    @Test func reducerRoundsEachDueUpNotTheInterval() {
        // 3 per 10 ns: I = 10/3. Four at 0 go out at 0, 4, 7, 10 (exact
        // 0, 10/3, 20/3, 10), then the bucket is full at ceil(40/3) = 14.
        let policy = rate(3, per: 10)
        var state = policy.initialState
        #expect(policy.reduce(into: &state, .event(1, at: 0)) == Effects(emit: 1, schedule: 4))
        #expect(policy.reduce(into: &state, .event(2, at: 0)) == Effects(schedule: 4))
        #expect(policy.reduce(into: &state, .event(3, at: 0)) == .none)
        #expect(policy.reduce(into: &state, .event(4, at: 0)) == .none)
        #expect(policy.reduce(into: &state, .timerFired(at: 4)) == Effects(emit: 2, schedule: 7))
        #expect(policy.reduce(into: &state, .timerFired(at: 7)) == Effects(emit: 3, schedule: 10))
        #expect(policy.reduce(into: &state, .timerFired(at: 10)) == Effects(emit: 4, schedule: 14))
        #expect(state.arrival == ExactInstant(ceiling: 14, below: 2))
    }

    @Test func reducerALineWhenItsTokenArrivesGoesOutAtOnce() {
        // e == t with nothing waiting: no timer round trip.
        let policy = rate(1, per: 3.ticks)
        var state = policy.initialState
        _ = policy.reduce(into: &state, .event(1, at: 0))
        #expect(policy.reduce(into: &state, .event(2, at: tick(3))) == Effects(emit: 2, schedule: 6.ticks))
        #expect(policy.pending(in: state) == nil)
    }

    @Test func reducerBurstGoesOutAtOnceThenPaced() {
        // 1 per 3 ticks, bucket of 3: three at once, the fourth at
        // A - 2 * I = 9 - 6 = 3, the fifth at 6; full again at 15.
        let policy = rate(1, per: 3.ticks, burst: 3)
        var state = policy.initialState
        for i in 1...3 { #expect(policy.reduce(into: &state, .event(EventNumber(i), at: 0)).emit == EventNumber(i)) }
        #expect(policy.reduce(into: &state, .event(4, at: 0)) == Effects(schedule: 3.ticks))
        #expect(policy.reduce(into: &state, .event(5, at: 0)) == .none)
        #expect(policy.reduce(into: &state, .timerFired(at: tick(3))) == Effects(emit: 4, schedule: 6.ticks))
        #expect(policy.reduce(into: &state, .timerFired(at: tick(6))) == Effects(emit: 5, schedule: 15.ticks))
    }

    @Test func aBacklogOfAMillionIsLinear() {
        // Each event and each timer is O(1): a million waiting lines, in
        // and out, in order, with their dues one I apart.
        let policy = rate(1_000, per: 1_000_000_000)
        var state = policy.initialState
        let count = 1_000_000
        for i in 0..<count { _ = policy.reduce(into: &state, .event(EventNumber(i), at: 0)) }
        #expect(policy.backlog(in: state) == count - 1)
        var due: Instant = 1_000_000
        for i in 1..<count {
            let effects = policy.reduce(into: &state, .timerFired(at: due))
            guard effects.emit == EventNumber(i) else {
                Issue.record("timer \(i) emitted \(String(describing: effects.emit))")
                return
            }
            due = effects.schedule!
        }
        #expect(due == Instant(count) * 1_000_000)
        #expect(policy.backlog(in: state) == 0)
    }

    // MARK: - Marbles

    @Test func evenlySpacedByDefault() {
        expectRateMarbles(rate(1, per: 2.ticks),
                          input:  "[abcd]|",
                          output: "a-b-c-d")
    }

    @Test func aLineExactlyWhenTheNextTokenArrivesIsNotDelayed() {
        expectRateMarbles(rate(1, per: 2.ticks),
                          input:  "a-b-c|",
                          output: "a-b-c")
        expectRateMarbles(rate(1, per: 2.ticks),
                          input:  "ab-c|",
                          output: "a-b-c")
    }

    @Test func burstsLargerEqualAndSmallerThanN() {
        // B = 3 > N = 1 per 2 ticks.
        expectRateMarbles(rate(1, per: 2.ticks, burst: 3),
                          input:  "[abcde]|",
                          output: "[abc]-d-e")
        // B = N = 2 per 2 ticks: two at once, then one per tick.
        expectRateMarbles(rate(2, per: 2.ticks, burst: 2),
                          input:  "[abcde]|",
                          output: "[ab]cde")
        // B = 1 < N = 2 per 2 ticks: evenly spaced, one per tick.
        expectRateMarbles(rate(2, per: 2.ticks),
                          input:  "[abcde]|",
                          output: "abcde")
    }

    @Test func backlogsOfInterleavedKeysKeepEachKeysOrder() {
        // 1 per 2 ticks per key. a's lines go out at 0, 2, 4, b's at 1, 3, 5;
        // A's line comes after a's and waits its turn.
        expectRateMarbles(rate(1, per: 2.ticks), keys: .caseFolded,
                          input:  "[aa]b[bA]b|",
                          output: "ababAb")
    }

    @Test func theDriverHelperCanFail() {
        withKnownIssue {
            expectRateMarbles(rate(1, per: 2.ticks), input: "[ab]|", output: "[ab]")
        }
        withKnownIssue {
            expectRateMarbles(rate(1, per: 2.ticks), input: "[ab]", output: "a")
        }
    }

    @Test func endOfInputKeepsThePace() {
        // Replay's clock runs on: the backlog comes out at its due times.
        expectRateMarbles(rate(1, per: 3.ticks),
                          input:  "[abc]|",
                          output: "a--b--c")
    }
}
