// `--limit N/D` (a policer): a bucket of B tokens refilling at N per D; a line
// that finds a whole token goes out at once, the others are dropped. Marble
// tests for what SPEC draws, then the reducer's state value by value,
// including the exactness of I = D/N and the bounds of its arithmetic.

import PaceCore
import PaceTesting
import Testing

private func limit(_ count: Int64, per period: Nanoseconds, burst: Int64? = nil) -> Limit<EventNumber> {
    Limit(rate: CellRate(count: count, per: period, burst: burst ?? count))
}

@Suite struct LimitTests {
    // MARK: - The next token

    @Test func aLineExactlyWhenTheNextTokenArrivesPasses() {
        // 2 per 4 ticks, bucket of 2: I = 2 ticks. a and b empty the bucket
        // at 0; the next token comes at 2: c one tick early is dropped, d at
        // exactly 2 passes.
        expectMarbles(limit(2, per: 4.ticks),
                      input:  "[ab]cd|",
                      output: "[ab]-d")
    }

    @Test func oneTokenPerDIsAThrottle() {
        // B = N = 1: the same diagrams as ThrottleFirstTests.
        let one = limit(1, per: 3.ticks)
        expectMarbles(one, input: "a--b|", output: "a--b")
        expectMarbles(one, input: "a-b|", output: "a")
        expectMarbles(one, input: "ab-c|", output: "a--c")
        expectMarbles(one, input: "abcdefg|", output: "a--d--g")
        expectMarbles(one, input: "[abc]--[de]|", output: "a    --d")
    }

    @Test func theIntervalIsExactNotRounded() {
        // 3 per 10 ns, bucket of 3, one tick = 1 ns: I = 10/3 ns. After the
        // burst at 0 a token comes every 10/3 ns, from 10/3: the lines at
        // ceil(10/3) = 4, 7 (20/3 -> 7), 10, 14 (40/3), 17, 20 pass.
        // Rounding I to 3 ns would pass 3, 6, 9, ...; to 4 ns, 4, 8, 12, ...
        expectMarbles(limit(3, per: 10), tick: 1,
                      input:  "[abc]defghijklmnopqrstuvw|",
                      output: "[abc]---g--j--m---q--t--w")
    }

    // MARK: - Bursts

    @Test func aBurstLargerThanTheRate() {
        // B = 3 > N = 1 per 2 ticks: three at once, then one every 2 ticks.
        expectMarbles(limit(1, per: 2.ticks, burst: 3),
                      input:  "[abcd]-e-f|",
                      output: "[abc] -e-f")
    }

    @Test func aBurstEqualToTheRate() {
        // B = N = 3 per 3 ticks: three at once, then a token per tick, not
        // a fixed window: by 3 the bucket has had three back and e took one.
        expectMarbles(limit(3, per: 3.ticks),
                      input:  "[abcd]-e[fgh]|",
                      output: "[abc] -e[fg]")
    }

    @Test func aBurstSmallerThanTheRate() {
        // B = 2 < N = 4 per 4 ticks: never more than two at once, though
        // four go out per 4 ticks.
        expectMarbles(limit(4, per: 4.ticks, burst: 2),
                      input:  "[abc]-[def]-[ghi]|",
                      output: "[ab] -[de] -[gh]")
    }

    @Test func theBucketRefillsWhileIdleButNeverBeyondB() {
        // 1 per tick, bucket of 2: long silence gives back two tokens only.
        expectMarbles(limit(1, per: 1.ticks, burst: 2),
                      input:  "[abc]-----[def]|",
                      output: "[ab] -----[de]")
    }

    // MARK: - End of input

    @Test func endOfInputHasNothingPending() {
        let clock = expectMarbles(limit(2, per: 4.ticks),
                                  input:  "[abc]|",
                                  output: "[ab]")
        #expect(clock.isQuiet)
    }

    @Test func liveEndEmitsNothingMore() {
        var run = TestClock(policy: limit(2, per: 4.ticks))
        run.send("a", at: 0)
        run.send("b", at: 0)
        run.send("c", at: tick(1))
        run.finishLive(at: tick(2))
        #expect(run.emissions == [Emitted(time: 0, "a"), Emitted(time: 0, "b")])
        #expect(run.isQuiet)
    }

    // MARK: - Keys

    @Test func keysHaveTheirOwnBuckets() {
        // 2 per 4 ticks each: key a's third line at 0 finds its bucket
        // empty, while key b's starts full at 1; b's next token is at 3.
        expectMarbles(limit(2, per: 4.ticks), keys: .caseFolded,
                      input:  "[aAA]b[Bb]B|",
                      output: "[aA] bB   B")
    }

    @Test func aKeyIsForgottenOnceItsBucketIsFullAgain() {
        // 2 per 4 ticks: x's two lines at 0 and 1 make A = 1 + 2 = 4 ticks
        // (the first at 0 gave A = 2, max(2, 1) + 2 = 4); y's one line at 1
        // makes A = 3 ticks. A key whose bucket is full has lapsed; it is
        // forgotten once a new key would take the count of active keys past
        // its peak (Scheduler, "Lapsed keys"), and only if it has lapsed.
        var clock = TestClock(policy: limit(2, per: 4.ticks), keyed: true)
        clock.send("x1", key: "x")
        clock.advance(to: tick(1))
        clock.send("x2", key: "x")
        clock.send("y1", key: "y")
        #expect(clock.heldKeys == 2)
        clock.advance(to: tick(3) - 1)
        // x's timer, set at 2 ticks by its first line, fires there as z
        // comes and is set again at 4; y's bucket is not full yet: three
        // active.
        clock.send("z1", key: "z")
        #expect(clock.heldKeys == 3)
        #expect(clock.stats.peakActiveKeys == 3)
        clock.advance(to: tick(4))
        #expect(clock.heldKeys == 3)  // x and y have lapsed, still held
        clock.send("w1", key: "w")    // four would pass the peak: x and y go
        #expect(clock.heldKeys == 2)
        #expect(clock.stats.peakActiveKeys == 3)
        clock.send("x3", key: "x")    // x comes back as a new key: a full bucket
        #expect(clock.heldKeys == 3)
        #expect(clock.stats.peakActiveKeys == 3)
        clock.finish()
        #expect(clock.heldKeys == 0)
        #expect(clock.isQuiet)
        #expect(clock.emissions == [Emitted(time: 0, "x1"), Emitted(time: tick(1), "x2"), Emitted(time: tick(1), "y1"),
                                    Emitted(time: tick(3) - 1, "z1"), Emitted(time: tick(4), "w1"),
                                    Emitted(time: tick(4), "x3")])
    }

    // MARK: - The reducer, value by value

    @Test func reducerFirstLineTakesATokenAndSetsTheFullTimer() {
        let policy = limit(3, per: 10)
        var state = policy.initialState
        #expect(state == .full)
        // A = 100 + 10/3 = 310/3: ceiling 104, 2/3 below it.
        // Emitted at once: nothing held (hold false), and the key is not
        // idle until its timer finds the bucket full (idle false).
        #expect(policy.reduce(into: &state, .event(1, at: 100)) == Effects(emit: 1, schedule: 104))
        #expect(state == .refilling(arrival: ExactInstant(ceiling: 104, below: 2)))
    }

    @Test func reducerDroppedLineLeavesA() {
        let policy = limit(1, per: 10)
        var state = Limit<EventNumber>.State.refilling(arrival: ExactInstant(130))
        #expect(policy.reduce(into: &state, .event(2, at: 129)) == Effects(discarded: 2))
        #expect(state == .refilling(arrival: ExactInstant(130)))
        #expect(policy.reopening(in: state) == 130)
    }

    @Test func reducerTheFullTimerForgetsA() {
        let policy = limit(1, per: 10)
        var state = Limit<EventNumber>.State.refilling(arrival: ExactInstant(130))
        // It emits nothing and says the key can be forgotten.
        #expect(policy.reduce(into: &state, .timerFired(at: 130)) == .becameIdle)
        #expect(state == .full)
    }

    @Test func reducerNextTokenIsRoundedUp() {
        // 3 per 10, bucket 2: two lines at 0 give A = 20/3 (7, 1/3 below);
        // the next token is at A - 10/3 = 10/3, so a line at 3 is dropped
        // and one at 4 passes.
        let policy = limit(3, per: 10, burst: 2)
        var state = policy.initialState
        _ = policy.reduce(into: &state, .event(1, at: 0))
        _ = policy.reduce(into: &state, .event(2, at: 0))
        #expect(state == .refilling(arrival: ExactInstant(ceiling: 7, below: 1)))
        #expect(policy.reopening(in: state) == 4)
        #expect(policy.reduce(into: &state, .event(3, at: 3)) == Effects(discarded: 3))
        // max(20/3, 4) + 10/3 = 10. The timer is left at 7, where the
        // bucket would have been full without line 4.
        #expect(policy.reduce(into: &state, .event(4, at: 4)) == Effects(emit: 4))
        #expect(state == .refilling(arrival: ExactInstant(10)))
        // Fired there, before A, it is set again at A.
        var early = state
        #expect(policy.reduce(into: &early, .timerFired(at: 7)) == Effects(schedule: 10))
        #expect(early == state)
        #expect(policy.reduce(into: &state, .timerFired(at: 10)) == Effects(idle: true))
        #expect(state == .full)
    }

    // MARK: - Large N, long D: no overflow

    @Test func aBillionPerThreeDaysIsExact() {
        // N = 10^9 per 72 h + 1 ns: I = 259200.000000001 ns.
        let period = Nanoseconds(72 * 3_600_000_000_000 + 1)
        let policy = limit(1_000_000_000, per: period)
        var state = policy.initialState
        for i in 0..<3 { _ = policy.reduce(into: &state, .event(EventNumber(i), at: 0)) }
        // A = 3 * I = 777600.000000003: ceiling 777601, 999999997/10^9 below.
        #expect(state == .refilling(arrival: ExactInstant(ceiling: 777_601, below: 999_999_997)))
        // The bucket of 10^9 is nowhere near empty: the next token is at
        // A - (10^9 - 1) * I, far in the past, so a line passes at once.
        // A = 4 * I = 1036800.000000004 (the timer stays where the first
        // line set it).
        #expect(policy.reduce(into: &state, .event(3, at: 0)) == Effects(emit: 3))
        #expect(state == .refilling(arrival: ExactInstant(ceiling: 1_036_801, below: 999_999_996)))
    }

    @Test func aBillionPerThreeDaysEmptiesAfterABillionLines() {
        // B = 2 instead, so the bucket empties: two at once, then one each
        // I = 259200 ns, with marbles one I per tick.
        expectMarbles(limit(1_000_000_000, per: Nanoseconds(72 * 3_600_000_000_000), burst: 2), tick: 259_200,
                      input:  "[abc]d[ef]|",
                      output: "[ab] d e")
    }

    @Test func farFutureAndFarPastTimesWithAHugeBucket() {
        // 1 per 100000 h with a bucket of 10^12: (B - 1) * I is about
        // 3.6 * 10^29 ns, beyond Int64 and UInt64; A itself passes the last
        // representable instant. Every line passes; the full timer is pinned
        // to Int64.max, and firing there does not forget an A beyond it.
        let period = Nanoseconds(100_000 * 3_600_000_000_000)
        let policy = limit(1, per: period, burst: 1_000_000_000_000)
        var state = policy.initialState
        #expect(policy.reduce(into: &state, .event(1, at: .min)) == Effects(emit: 1, schedule: .min + period))
        // The timer stays at .min + period; fired there, it moves to the
        // pinned .max, and firing there does not make the key idle (idle
        // false): it keeps its A.
        #expect(policy.reduce(into: &state, .event(2, at: .max - 5)) == Effects(emit: 2))
        #expect(state == .refilling(arrival: ExactInstant(ceiling: Int128(Int64.max) - 5 + Int128(period.count), below: 0)))
        #expect(policy.reduce(into: &state, .event(3, at: .max)) == Effects(emit: 3))
        #expect(state == .refilling(arrival: ExactInstant(ceiling: Int128(Int64.max) - 5 + 2 * Int128(period.count), below: 0)))
        #expect(policy.reduce(into: &state, .timerFired(at: .min + period)) == Effects(schedule: .max))
        #expect(policy.reduce(into: &state, .timerFired(at: .max)) == .none)
    }

    @Test func theLargestToleranceFitsInt128() {
        // B and D at Int64.max, N = 1: (B - 1) * D is just under 2^126.
        let policy = limit(1, per: .max, burst: .max)
        var state = policy.initialState
        for i in 0..<4 {
            #expect(policy.reduce(into: &state, .event(EventNumber(i), at: .max)).emit == EventNumber(i))
        }
        #expect(state == .refilling(arrival: ExactInstant(ceiling: 5 * Int128(Int64.max), below: 0)))
    }
}
