// `--debounce D [--max-wait M]`: the last event of a burst, once D of silence
// has passed; with a max-wait, no event waits longer than M after the first
// event of its pending run. Marble tests for the behaviour SPEC draws, then
// the reducer's state and effects value by value.

@testable import PaceCore
import PaceTesting
import Testing

@Suite struct DebounceTests {
    let debounce = Debounce<EventNumber>(window: 3.ticks)

    // MARK: - Ties at exactly D

    @Test func silenceOfExactlyDCountsAsSilence() {
        // b comes exactly D after a: a's timer, due then, fires first.
        expectMarbles(debounce,
                      input:  "a--b|",
                      output: "---a--b")
    }

    @Test func silenceOneTickShortOfDIsNot() {
        expectMarbles(debounce,
                      input:  "a-b-c|",
                      output: "-------c")
    }

    @Test func eventsAtTheDeadlineComeAfterTheTimer() {
        // Both b and c are at a's deadline: a goes out, then c ends the next run.
        expectMarbles(debounce,
                      input:  "a--[bc]|",
                      output: "---a  --c")
    }

    // MARK: - Bursts

    @Test func aBurstYieldsItsLastEvent() {
        expectMarbles(debounce,
                      input:  "abcd----efg|",
                      output: "------d------g")
    }

    @Test func eventsAtOneInstantKeepTheLast() {
        expectMarbles(debounce,
                      input:  "[abc]|",
                      output: "---  c")
    }

    @Test func eachEventMovesTheDeadline() {
        // Gaps of D - 1 forever postpone the emission, until input ends.
        expectMarbles(debounce,
                      input:  "a-b-c-d-e|",
                      output: "-----------e")
    }

    // MARK: - End of input

    @Test func endOfInputReleasesThePendingEventAtItsDueTime() {
        expectMarbles(debounce,
                      input:  "ab|",
                      output: "----b")
    }

    @Test func endOfInputAtTheDeadline() {
        expectMarbles(debounce,
                      input:  "a--|",
                      output: "---a")
    }

    @Test func noInputNoOutput() {
        let clock = expectMarbles(debounce, input: "|", output: "")
        #expect(clock.isQuiet)
    }

    @Test func liveEndEmitsThePendingEventAtOnce() {
        var run = TestClock(policy: debounce)
        run.send("a", at: 0)
        run.send("b", at: tick(1))
        run.finishLive(at: tick(2))
        #expect(run.emissions == [Emitted(time: tick(2), "b")])
        #expect(run.isQuiet)
    }

    @Test func liveEndFiresWhatIsAlreadyDueFirst() {
        var run = TestClock(policy: debounce)
        run.send("a", at: 0)
        run.finishLive(at: tick(3))
        #expect(run.emissions == [Emitted(time: tick(3), "a")])
    }

    // MARK: - Max-wait

    @Test func maxWaitInAnEndlessBurstGivesALineEveryM() {
        // A line every tick, D = 3, M = 5: each run lasts M from its first
        // event; the deadline at 5 fires before the event at 5, which starts
        // the next run.
        expectMarbles(Debounce(window: 3.ticks, maxWait: 5.ticks),
                      input:  "abcdefghijklmnopqrst|",
                      output: "-----e----j----o----t")
    }

    @Test func maxWaitIsCountedFromTheFirstEventSinceTheLastEmission() {
        // D = 2, M = 4. d goes out at 4 (f + M); e, at that very instant,
        // starts a new run: its deadline is 4 + 2, not 0 + 4.
        expectMarbles(Debounce(window: 2.ticks, maxWait: 4.ticks),
                      input:  "abcde|",
                      output: "----d-e")
        expectMarbles(Debounce(window: 2.ticks, maxWait: 4.ticks),
                      input:  "abcd-e|",
                      output: "----d--e")
    }

    @Test func aShortBurstIsNotAffectedByMaxWait() {
        expectMarbles(Debounce(window: 3.ticks, maxWait: 10.ticks),
                      input:  "ab---c|",
                      output: "----b---c")
    }

    @Test func maxWaitEqualToTheWindowMakesFixedWindows() {
        // min(t + D, f + D) = f + D: a run lasts exactly D from its start.
        expectMarbles(Debounce(window: 3.ticks, maxWait: 3.ticks),
                      input:  "abcdef|",
                      output: "---c--f")
    }

    // MARK: - Keys

    @Test func keysDebounceIndependently() {
        expectMarbles(debounce, keys: .caseFolded,
                      input:  "abAB|",
                      output: "-----AB")
        // The same stream unkeyed is one burst.
        expectMarbles(debounce,
                      input:  "abAB|",
                      output: "------B")
    }

    @Test func emissionsAtOneInstantAcrossKeysAreInInputOrder() {
        expectMarbles(debounce, keys: .caseFolded,
                      input:  "[ba]|",
                      output: "---  [ba]")
        // With D = 2, M = 3, A (event 2) and b (event 3) are due at 3 from
        // different start times; A came first in the input, so it goes first.
        expectMarbles(Debounce(window: 2.ticks, maxWait: 3.ticks), keys: .caseFolded,
                      input:  "a[Ab]|",
                      output: "---[Ab]")
        expectMarbles(Debounce(window: 2.ticks, maxWait: 3.ticks), keys: .caseFolded,
                      input:  "a[bA]|",
                      output: "---[bA]")
    }

    @Test func idleKeysAreForgotten() {
        var clock = TestClock(policy: debounce, keyed: true)
        clock.send("x1", key: "x")
        clock.advance(by: 1.ticks)
        clock.send("y1", key: "y")
        #expect(clock.heldKeys == 2)
        clock.advance(to: tick(3))
        #expect(clock.takeEmissions() == [Emitted(time: tick(3), "x1")])
        #expect(clock.heldKeys == 1)
        clock.advance(to: tick(4))
        #expect(clock.takeEmissions() == [Emitted(time: tick(4), "y1")])
        #expect(clock.heldKeys == 0)
        #expect(clock.isQuiet)
        // A forgotten key starts afresh.
        clock.send("x2", key: "x")
        #expect(clock.heldKeys == 1)
        clock.finish()
        #expect(clock.takeEmissions() == [Emitted(time: tick(7), "x2")])
        #expect(clock.heldKeys == 0)
    }

    // MARK: - README

    @Test func readmeExample() {
        let ms: Nanoseconds = 1_000_000
        var clock = TestClock(policy: Debounce<EventNumber>(window: 300 * ms))
        for (time, line) in [(0, "s"), (90 * ms, "sw"), (170 * ms, "swi"), (260 * ms, "swift")] as [(Nanoseconds, String)] {
            clock.advance(to: 0 + time)
            clock.send(line)
        }
        #expect(clock.emissions.isEmpty)
        clock.finish()
        #expect(clock.emissions == [Emitted(time: 0 + 560 * ms, "swift")])
    }

    // MARK: - The reducer, value by value

    @Test func reducerFirstEventBecomesPending() {
        var state = debounce.initialState
        #expect(state == .idle)
        #expect(debounce.reduce(into: &state, .event(1, at: 100)) == Effects(schedule: 100 + 3.ticks, hold: true))
        #expect(state == .pending(1, runStart: 100, deadline: 100 + 3.ticks))
    }

    @Test func reducerLaterEventReplacesThePendingOneAndMovesTheDeadline() {
        var state = Debounce<EventNumber>.State.pending(1, runStart: 100, deadline: 100 + 3.ticks)
        #expect(debounce.reduce(into: &state, .event(2, at: 200)) == Effects(schedule: 200 + 3.ticks, discarded: 1, hold: true))
        #expect(state == .pending(2, runStart: 100, deadline: 200 + 3.ticks))
    }

    @Test func reducerTimerEmitsThePendingEvent() {
        var state = Debounce<EventNumber>.State.pending(2, runStart: 100, deadline: 200 + 3.ticks)
        #expect(debounce.reduce(into: &state, .timerFired(at: 200 + 3.ticks)) == Effects(emit: 2, idle: true))
        #expect(state == .idle)
    }

    @Test func reducerMaxWaitCapsTheDeadline() {
        let policy = Debounce<EventNumber>(window: 30, maxWait: 50)
        var state = policy.initialState
        #expect(policy.reduce(into: &state, .event(1, at: 0)) == Effects(schedule: 30, hold: true))
        #expect(policy.reduce(into: &state, .event(2, at: 10)) == Effects(schedule: 40, discarded: 1, hold: true))
        #expect(policy.reduce(into: &state, .event(3, at: 25)) == Effects(schedule: 50, discarded: 2, hold: true))
        #expect(state == .pending(3, runStart: 0, deadline: 50))
        #expect(policy.reduce(into: &state, .timerFired(at: 50)) == Effects(emit: 3, idle: true))
        #expect(policy.reduce(into: &state, .event(4, at: 50)) == Effects(schedule: 80, hold: true))
        #expect(state == .pending(4, runStart: 50, deadline: 80))
    }

    @Test func reducerDeadlineSaturatesAtTheEndOfTime() {
        var state = debounce.initialState
        #expect(debounce.reduce(into: &state, .event(1, at: .max - 1)) == Effects(schedule: .max, hold: true))
    }
}
