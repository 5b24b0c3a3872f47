// What a mode (Replay.swift, Live.swift) supplies to the driver: a time for
// each line and a way to wait; the rest of a run is the driver's.

/// What a mode supplies to the driver.
package protocol RunMode {
    /// Live mode: an empty line is an event (replay skips it), and pending
    /// events are emitted at once at end of input, stamped `now` (replay
    /// runs the virtual clock on instead).
    static var isLive: Bool { get }
    /// The time of the line just read. `fields` is the line as fields and
    /// timestamps see it (line 1 without a byte-order mark).
    mutating func stamp(_ line: UnsafeRawBufferPointer, fields: UnsafeRawBufferPointer) throws(OutputError) -> LineStamp
    /// The mode's current time: a pass-through line's emission time, and the
    /// time of the end of input (live).
    var now: Instant { get }
    /// Waits until input can be read, the timer due at `deadline` is, a
    /// signal arrives or stdout's reader has gone (replay: input is always
    /// to be read, with a blocking read).
    mutating func wait(until deadline: Instant?) -> LiveWake
    /// Reads once more into `input`, once `wait` said input is ready. Replay
    /// calls `beforeWaiting` (it flushes what is decided) when the read
    /// would have to wait, then its watch looks again, and it waits where
    /// signals are delivered, until the watch's next look at most; live
    /// mode reads at once (its clock's wait said input is ready).
    mutating func fill(_ input: inout LineReader, beforeWaiting: () throws(OutputError) -> Void) throws(OutputError)
        -> LineReader.Fill
    /// Reads the clock after a wait or a read ended (replay: nothing to do).
    mutating func tick()
    /// `--exec`'s runner has something to do: the wait returned
    /// `.commandsReady` (live; see Commands/LiveCommands.swift).
    mutating func commandsReady() throws(OutputError)
    /// `--exec`'s counters so far, for SIGUSR1's summary (nil without it).
    var commandStats: CommandStats? { get }
    /// `--exec`'s runner, which the driver waits for at the end (nil
    /// without it).
    var commands: (any CommandWatch)? { get }
    /// Lines whose timestamp was earlier than the latest (replay).
    var clamped: Int64 { get }
    /// Input has ended; waits from now on are for timers only (live).
    mutating func inputEnded()
    /// Every line of a read was handled (live: the record is written out).
    mutating func caughtUp() throws(OutputError)
    /// The line read last, never taken, went back to the input file (live:
    /// the record no longer owes it).
    mutating func lineGivenBack()
    /// A line read but never handled (stdout's reader went away): live
    /// mode records it, as it records every line read.
    mutating func unhandled(_ line: UnsafeRawBufferPointer) throws(OutputError)
    /// The run is over (live: the record is written out, or its error kept).
    mutating func complete(_ report: inout RunReport)
    /// The walks of a line the mode plans with its own (replay's time walk
    /// may find the key), or nil: the run plans them (LineWalk.swift).
    var walks: LineWalks? { get }
    /// The run's watch (replay looks again while it waits for input; live
    /// mode's wait is the driver's to bound).
    mutating func watched(by watch: RunWatch)
}

extension RunMode {
    package var walks: LineWalks? { nil }
    package mutating func watched(by watch: RunWatch) {}
    package mutating func lineGivenBack() {}
    package mutating func unhandled(_ line: UnsafeRawBufferPointer) throws(OutputError) {}
}

/// The time of a line, as its mode sees it.
package enum LineStamp {
    /// An event at this time. The line's own bytes start at `contentStart`
    /// of its fields (replay's `record` format removes its prefix), or are
    /// the whole line, as read, when it is 0. `timeField` is where the
    /// line's timestamp ended, when that says where its field is (replay of
    /// a unix time in a blank-separated field; else `.none`): the key's
    /// field is searched for from there.
    case event(Instant, contentStart: Int, timeField: FieldPosition)
    /// Its timestamp did not parse (replay).
    case bad(BadTime)
}
