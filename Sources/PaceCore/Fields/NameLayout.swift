// A NAME laid out for the per-line path: its bytes and where each dotted
// level ends, in memory of its own that the extractor keeps alive. Reading a
// NAME through arrays cost a handful of retains and releases per line, a
// fifth of what finding a JSON member takes; raw pointers cost none.

/// Where a NAME's bytes and levels are, for the scanners.
struct NameView {
    /// The NAME as typed (the logfmt key).
    let bytes: UnsafeRawBufferPointer
    /// The end offset in `bytes` of each dotted level (the last is `bytes.count`).
    let ends: UnsafeBufferPointer<Int>

    /// The JSON member name of `level` (0-based).
    @inline(__always)
    func level(_ level: Int) -> UnsafeRawBufferPointer {
        let start = level == 0 ? 0 : ends[level - 1] &+ 1
        return UnsafeRawBufferPointer(rebasing: bytes[start..<ends[level]])
    }
}

/// Owns the memory a NameView points into.
final class NameLayout {
    let view: NameView

    init(_ name: FieldName) {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, name.bytes.count), alignment: 1)
        bytes.copyBytes(from: name.bytes)
        let ends = UnsafeMutableBufferPointer<Int>.allocate(capacity: name.path.count)
        var end = -1
        for (i, level) in name.path.enumerated() {
            end += 1 + level.count
            ends[i] = end
        }
        view = NameView(bytes: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[..<name.bytes.count]),
                        ends: UnsafeBufferPointer(ends))
    }

    deinit {
        UnsafeMutableRawPointer(mutating: view.bytes.baseAddress)?.deallocate()
        UnsafeMutablePointer(mutating: view.ends.baseAddress)?.deallocate()
    }
}
