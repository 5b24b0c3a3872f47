// Output: where the lines that leave pace go. This room holds the one value
// every output line is (`Emission`), the protocol of the places it goes
// (`LineSink`), stdout's buffered writer (FileSink), the other files'
// writers (FileWriter: `--record`, `--dropped`) and the counting layer
// (`--count`, Counting.swift) with its memory of forgotten keys.
//
// The scheduler is generic over its sink so that replay, live mode and the
// tests share one code path and the compiler specialises it for each: the
// production sink buffers bytes for write(2), the test sink records them,
// `--exec`'s sink runs a command.
//
// One `Emission` and one `emit`: a new attribute of an output line (a mark,
// a batch) is one more field here, not one more overload in every sink.

/// A failure to write output. `brokenPipe` is the reader having gone away
/// (`| head -1`), which pace treats as a quiet, successful end.
package enum OutputError: Error, Equatable {
    case brokenPipe
    /// errno of a failed write, with the name of what was being written.
    case failed(target: String, errno: Int32)
    /// A second SIGINT or SIGTERM came while a write waited: pace ends at
    /// once. The count is the lines of the write (and of the sink's buffer)
    /// that did not go out; a line partly written counts as not written.
    case interrupted(linesNotWritten: Int64)
}

/// Identifies an event: its input line number (1-based, counting every line),
/// as replay and live mode number them; tests may number events 1, 2, 3.
/// Policies hold these, never bytes, so they stay pure values; the scheduler
/// keeps the bytes of the pending ones.
package typealias EventNumber = Int64

/// `--state`: the numbers of episodes' last lines loaded from FILE (a
/// previous run's lines), 2^39 on: after every line of this run, below the
/// bit `--exec` sets on a resolved line's number.
package let savedLineNumbers: EventNumber = 1 << 39

/// How messages name event `number`: `line N`, or `saved line K` for the
/// K-th episode loaded from `--state`'s FILE.
package func lineName(_ number: EventNumber) -> String {
    number >= savedLineNumbers ? "saved line \(number - savedLineNumbers + 1)" : "line \(number)"
}

/// One line leaving pace, as every sink and the observer see it. Its bytes
/// (`line`, `key`) are valid only for the call it is passed to.
package struct Emission {
    /// The line's bytes, without `\n`.
    package var line: UnsafeRawBufferPointer
    /// Its emission time.
    package var time: Instant
    /// The event's number (its input line), which `--exec` reports a failed
    /// command by.
    package var number: EventNumber
    /// `--count`'s number (the line itself plus its key's discards since the
    /// key's previous output line), set by the counting layer; 0 when the
    /// run does not count.
    package var count: Int64
    /// The key as the scheduler took it from the line (empty unkeyed): the
    /// same bytes, never parsed again.
    package var key: UnsafeRawBufferPointer
    /// The key's slot in the scheduler (the counting layer's index), or
    /// `Emission.outsidePolicy` for a line that never met the policy.
    package var slot: Int32
    /// `--resolve-after`'s mark (`.none` without it), set by the scheduler.
    package var mark: EpisodeMark = .none
    /// `--batch`: the line's 0-based place in its batch (0 for a line alone).
    package var batchIndex: Int32 = 0
    /// `--batch`: its batch's number of lines (0 without `--batch`).
    package var batchSize: Int32 = 0

    /// The last line of its batch, or a line outside any batch.
    package var endsBatch: Bool { batchIndex + 1 >= batchSize }

    /// The slot of a line outside the policy (`--on-bad-time pass`): it
    /// counts 1.
    package static var outsidePolicy: Int32 { -1 }

    @inline(__always)
    package init(line: UnsafeRawBufferPointer, time: Instant, number: EventNumber, count: Int64 = 0,
                 key: UnsafeRawBufferPointer = .empty,
                 slot: Int32 = Emission.outsidePolicy, batchIndex: Int32 = 0, batchSize: Int32 = 0) {
        self.line = line
        self.time = time
        self.number = number
        self.count = count
        self.key = key
        self.slot = slot
        self.batchIndex = batchIndex
        self.batchSize = batchSize
    }
}

/// `--resolve-after`: where an output line stands in its key's episode
/// (SPEC Episodes).
package enum EpisodeMark: UInt8, Sendable {
    /// Not marked: the run has no `--resolve-after`.
    case none
    case first
    case `repeat`
    case resolved
    /// A line outside the policy (`--on-bad-time pass`), in no episode.
    case exempt

    /// The word stdout's column and `PACE_EVENT` show.
    package var word: String {
        switch self {
        case .none: ""
        case .first: "first"
        case .repeat: "repeat"
        case .resolved: "resolved"
        case .exempt: "exempt"
        }
    }
}

/// Receives each line that leaves pace.
package protocol LineSink: ~Copyable {
    /// One output line.
    mutating func emit(_ emission: Emission) throws(OutputError)
    /// Writes out what is buffered.
    mutating func flush() throws(OutputError)

    // The counting layer's part (Counting.swift); every other sink keeps
    // the defaults, and the scheduler's calls to them compile away.

    /// `--count`: the scheduler tells the sink of each discard and of each
    /// key that joins or leaves its key table. False unless a sink says so.
    static var counts: Bool { get }
    /// The sink reads `Emission.key` (`--exec`'s PACE_KEY); for any other,
    /// a line a timer emits carries no key, which saves looking it up.
    static var readsKeys: Bool { get }
    /// An event of the key of `slot` was discarded.
    mutating func discarded(slot: Int32)
    /// A key joined the key table at `slot`.
    mutating func keyJoined(slot: Int32, key: UnsafeRawBufferPointer, hash: UInt64, keysInTable: Int)
    /// The key of `slot` leaves the key table (its slot is reused after).
    mutating func keyLeft(slot: Int32, key: UnsafeRawBufferPointer, hash: UInt64)
    /// The key of `slot` went idle (it stays in the table for a while).
    mutating func keyIdled(slot: Int32)
    /// The key of `slot`, idle in the table, has an event again.
    mutating func keyReturned(slot: Int32)
    /// The keys the sink remembers counts for, with those in the table,
    /// are past the bound it keeps: see LapsedKeys.swift.
    var countsPassTheirBound: Bool { get }
    /// Discards of keys forgotten with their count, never counted.
    var uncountedDiscards: Int64 { get }

    // `--resolve-after`'s part (Output/Marking.swift).

    /// The scheduler may mark episodes on this sink: true only for the
    /// counting layer, which a run with `--resolve-after` always has. For
    /// every other sink the scheduler's episode code compiles away
    /// (`Scheduler.marks`).
    static var marksEpisodes: Bool { get }
    /// An output line of a run that marks episodes, with its mark (the
    /// counting layer counts it, then stdout's sink writes the mark).
    mutating func emitMarked(_ emission: Emission) throws(OutputError)

    // `--state` (State/): what a key owes, read for a save and set by a load.

    /// The discards the key of `slot` owes.
    func owed(slot: Int32) -> Int64
    /// The key of `slot`, new to the table, owes `count` (a loaded state).
    mutating func setOwed(slot: Int32, _ count: Int64)
    /// Runs `body` on each key the table forgot that owes a count.
    func forEachForgotten(_ body: (UnsafeRawBufferPointer, Int64) -> Void)
    /// `key`, not in the table, owes `count` (a loaded key that is idle).
    mutating func rememberForgotten(_ key: UnsafeRawBufferPointer, hash: UInt64, owed count: Int64)
    /// `--exec`: what each key owes for lines its commands never ran
    /// (`--on-busy drop`, a signal's shutdown), and with `includingWaiting`
    /// for those still waiting to run too (a save they may never follow).
    func forEachOwedByCommands(includingWaiting: Bool, _ body: (UnsafeRawBufferPointer, Int64) -> Void)

    // `--then-every` (Counting.swift); false for every other sink. The run
    // of discards it counts is the owed count of `owed(slot:)`.

    /// The sink may let some discards through (`--then-every`).
    static var thinsDiscards: Bool { get }
    /// Whether the discard the key of `slot` is about to have is let
    /// through instead: its run of discards would reach M.
    func letsThrough(discardOf slot: Int32) -> Bool

    /// `--progress` with stdout on its terminal: `erase` is called before
    /// each write to stdout (stdout's sink; a layer over it passes it on).
    mutating func eraseBeforeWriting(_ erase: @escaping () -> Void)
}

extension LineSink where Self: ~Copyable {
    package static var counts: Bool { false }
    package static var readsKeys: Bool { false }
    @inline(__always)
    package mutating func discarded(slot: Int32) {}
    @inline(__always)
    package mutating func keyJoined(slot: Int32, key: UnsafeRawBufferPointer, hash: UInt64, keysInTable: Int) {}
    @inline(__always)
    package mutating func keyLeft(slot: Int32, key: UnsafeRawBufferPointer, hash: UInt64) {}
    @inline(__always)
    package mutating func keyIdled(slot: Int32) {}
    @inline(__always)
    package mutating func keyReturned(slot: Int32) {}
    package var countsPassTheirBound: Bool { false }
    package var uncountedDiscards: Int64 { 0 }
    package static var marksEpisodes: Bool { false }
    /// A sink that shows no mark itself (`--exec`'s reads `Emission.mark`).
    package mutating func emitMarked(_ emission: Emission) throws(OutputError) {
        try emit(emission)
    }

    package func owed(slot: Int32) -> Int64 { 0 }
    package mutating func setOwed(slot: Int32, _ count: Int64) {}
    package func forEachForgotten(_ body: (UnsafeRawBufferPointer, Int64) -> Void) {}
    package mutating func rememberForgotten(_ key: UnsafeRawBufferPointer, hash: UInt64, owed count: Int64) {}
    package func forEachOwedByCommands(includingWaiting: Bool, _ body: (UnsafeRawBufferPointer, Int64) -> Void) {}

    package static var thinsDiscards: Bool { false }
    @inline(__always)
    package func letsThrough(discardOf slot: Int32) -> Bool { false }
    /// A sink that buffers nothing has nothing to write out.
    package mutating func flush() throws(OutputError) {}
    package mutating func eraseBeforeWriting(_ erase: @escaping () -> Void) {}
}
