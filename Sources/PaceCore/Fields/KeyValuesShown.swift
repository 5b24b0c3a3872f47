// A key the extractor made, read back (KeyExtractor.swift encodes a key of
// several values): whether bytes are such a key (a `--state` file's, which
// may be damaged), and the key as people read it, its values joined by one
// space.

extension KeyExtractor {
    /// Whether `key` is one this extractor makes (a `--state` file's key,
    /// which may be damaged): an encoded key's counts and lengths fill it
    /// exactly, item by item. Any bytes are a key of one value.
    package func makes(_ key: UnsafeRawBufferPointer) -> Bool {
        shape != .encoded || forEachValue(of: key) { _ in }
    }

    /// A key as people read it: its values joined by one space.
    package func shown(_ key: [UInt8]) -> [UInt8] {
        guard shape == .encoded else { return key }
        var shown: [UInt8] = []
        var first = true
        key.withUnsafeBytes { bytes in
            _ = forEachValue(of: bytes) { value in
                if !first { shown.append(0x20) }
                first = false
                shown.append(contentsOf: value)
            }
        }
        return shown
    }

    /// Each value of the encoded key `key`, in order, as `body` is given
    /// it; false (having stopped) where its counts and lengths do not fill
    /// it exactly, item by item.
    func forEachValue(of key: UnsafeRawBufferPointer, _ body: (Slice<UnsafeRawBufferPointer>) -> Void) -> Bool {
        var offset = 0
        /// The 8-byte length or count at `offset`, if it is no more than `most`.
        func length(atMost most: Int) -> Int? {
            guard key.count - offset >= 8 else { return nil }
            let n = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
            return n <= UInt64(most) ? Int(n) : nil
        }
        func value() -> Bool {
            guard let n = length(atMost: key.count - offset - 8) else { return false }
            body(key[offset..<(offset + n)])
            offset += n
            return true
        }
        for item in items {
            switch item {
            case .field, .name:
                guard value() else { return false }
            case .range, .from:
                guard let count = length(atMost: (key.count - offset - 8) / 8) else { return false }
                for _ in 0..<count where !value() { return false }
            }
        }
        return offset == key.count
    }
}
