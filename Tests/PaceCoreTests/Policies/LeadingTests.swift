// `--leading D`: the first event of a burst goes out at once; every event,
// emitted or not, pushes the window's end to t + D, so the next burst starts
// only after D of silence. Marble tests for what SPEC draws, then the
// reducer's state and effects value by value.

@testable import PaceCore
import PaceTesting
import Testing

@Suite struct LeadingTests {
    let leading = Leading<EventNumber>(window: 3.ticks)

    // MARK: - Ties at exactly D

    @Test func silenceOfExactlyDCountsAsSilence() {
        // The window closes at 3, before b at 3 is handled: b starts a burst.
        expectMarbles(leading,
                      input:  "a--b|",
                      output: "a--b")
    }

    @Test func silenceOneTickShortOfDIsNot() {
        expectMarbles(leading,
                      input:  "a-b|",
                      output: "a")
    }

    @Test func droppedEventsStillPushTheWindow() {
        // b at 2 is dropped and moves the end to 5, so c at 4 is dropped too
        // and moves it to 7; e at 7 follows exactly D of silence: a new burst.
        expectMarbles(leading,
                      input:  "a-b-c--e|",
                      output: "a------e")
        // Against a throttle, whose window would not have moved: c at 3 is
        // dropped here, as b at 1 moved the end to 4.
        expectMarbles(leading,
                      input:  "ab-c|",
                      output: "a")
    }

    // MARK: - Bursts

    @Test func aBurstYieldsItsFirstEvent() {
        expectMarbles(leading,
                      input:  "abcdef--g|",
                      output: "a-------g")
    }

    @Test func eventsAtOneInstantKeepTheFirst() {
        expectMarbles(leading,
                      input:  "[abc]|",
                      output: "a")
    }

    @Test func aSteadyStreamFasterThanDIsOneBurst() {
        expectMarbles(leading,
                      input:  "a-b-c-d-e-f-g|",
                      output: "a")
    }

    // MARK: - End of input

    @Test func endOfInputHasNothingPending() {
        // The dropped b is not held back: nothing comes out after the end,
        // and the open window's timer runs out without a line.
        let clock = expectMarbles(leading,
                                  input:  "ab|",
                                  output: "a")
        #expect(clock.isQuiet)
    }

    @Test func liveEndEmitsNothingMore() {
        var run = TestClock(policy: leading)
        run.send("a", at: 0)
        run.send("b", at: tick(1))
        run.finishLive(at: tick(2))
        #expect(run.emissions == [Emitted(time: 0, "a")])
        #expect(run.isQuiet)
    }

    // MARK: - Keys

    @Test func keysHaveTheirOwnBursts() {
        expectMarbles(leading, keys: .caseFolded,
                      input:  "abAB-aB|",
                      output: "ab---aB")
        // The same stream unkeyed is one burst.
        expectMarbles(leading,
                      input:  "abAB-aB|",
                      output: "a")
    }

    @Test func emissionsAtOneInstantAcrossKeysAreInInputOrder() {
        expectMarbles(leading, keys: .caseFolded,
                      input:  "[bBa]|",
                      output: "[ba] ")
        // Both windows close at 3, before B and A are handled.
        expectMarbles(leading, keys: .caseFolded,
                      input:  "[ab]--[BA]|",
                      output: "[ab]--[BA]")
    }

    /// A key whose burst is over has lapsed and is forgotten once a new key
    /// would take the count of active keys past its peak (Scheduler,
    /// "Lapsed keys"); until then it is held, and nothing fires for it.
    @Test func lapsedKeysAreForgottenWhenANewKeyWouldPassThePeak() {
        var clock = TestClock(policy: leading, keyed: true)
        clock.send("x1", key: "x")
        clock.advance(to: tick(1))
        clock.send("y1", key: "y")
        clock.advance(to: tick(2))
        clock.send("x2", key: "x")  // dropped, but keeps x's burst on until 5
        #expect(clock.takeEmissions() == [Emitted(time: 0, "x1"), Emitted(time: tick(1), "y1")])
        #expect(clock.heldKeys == 2)
        clock.advance(to: tick(4))
        #expect(clock.heldKeys == 2)  // y's burst ended at 4: lapsed
        clock.send("z1", key: "z")    // three would pass the peak: y goes
        #expect(clock.heldKeys == 2)
        #expect(clock.stats.peakActiveKeys == 2)
        #expect(clock.takeEmissions() == [Emitted(time: tick(4), "z1")])
        clock.advance(to: tick(5))
        clock.finish()
        #expect(clock.heldKeys == 0)
        #expect(clock.isQuiet)
        #expect(clock.takeEmissions() == [])
    }

    // MARK: - The reducer, value by value

    @Test func reducerFirstEventIsEmittedAndOpensAWindow() {
        var state = leading.initialState
        #expect(state == .idle)
        #expect(leading.reduce(into: &state, .event(1, at: 100)) == Effects(emit: 1, schedule: 100 + 3.ticks))
        #expect(state == .window(end: 100 + 3.ticks))
    }

    @Test func reducerEventInsideTheWindowIsDroppedAndMovesIt() {
        var state = Leading<EventNumber>.State.window(end: 130)
        let policy = Leading<EventNumber>(window: 30)
        #expect(policy.reduce(into: &state, .event(2, at: 120)) == Effects(schedule: 150, discarded: 2))
        #expect(state == .window(end: 150))
    }

    @Test func reducerWindowCloses() {
        var state = Leading<EventNumber>.State.window(end: 150)
        #expect(leading.reduce(into: &state, .timerFired(at: 150)) == Effects(idle: true))
        #expect(state == .idle)
    }

    @Test func reducerOnItsOwnTakesAnEventAtTheWindowsEnd() {
        // Without a scheduler firing the timer first, an event at the end
        // still opens a new burst.
        let policy = Leading<EventNumber>(window: 30)
        var state = Leading<EventNumber>.State.window(end: 130)
        #expect(policy.reduce(into: &state, .event(3, at: 130)) == Effects(emit: 3, schedule: 160))
        #expect(state == .window(end: 160))
    }
}
