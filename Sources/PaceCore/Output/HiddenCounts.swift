// `--state` without `--count`: the counting layer still keeps every key's
// count (SPEC: a later run with `--count` or `--exec` gets what this one
// owes), but the lines go out without it. This sink sits under `Counted`
// and drops the count before the sink that writes sees it; a run without
// `--state` never has it.

package struct HiddenCounts<Base: LineSink & ~Copyable>: LineSink, ~Copyable {
    package var base: Base

    package init(_ base: consuming Base) { self.base = base }

    package consuming func take() -> Base { base }

    package static var readsKeys: Bool { Base.readsKeys }

    @inline(__always)
    package mutating func emit(_ emission: Emission) throws(OutputError) {
        var bare = emission
        bare.count = 0
        try base.emit(bare)
    }

    /// `--resolve-after`: the mark goes out, the count does not.
    package mutating func emitMarked(_ emission: Emission, showingCount: Bool) throws(OutputError) {
        var bare = emission
        bare.count = 0
        try base.emitMarked(bare, showingCount: false)
    }

    package mutating func flush() throws(OutputError) { try base.flush() }
}
