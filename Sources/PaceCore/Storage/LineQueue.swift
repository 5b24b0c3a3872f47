// The lines held behind a slot's first (HeldLines): `--rate`'s waiting
// events and a `--batch`'s lines after its first, each a record of its event
// number, its length and its bytes, packed one after another in a byte FIFO.

/// Held events after a slot's first, oldest first, packed in one byte FIFO:
/// each is its number, its length and its bytes. A backlog of a million
/// waiting events costs their bytes and 16 bytes each.
struct LineQueue {
    private var bytes = FIFO<UInt8>()

    var isEmpty: Bool { bytes.isEmpty }

    /// The bytes allocated for the entries (for memory tests).
    var storageBytes: Int { bytes.capacity }

    @inline(__always)
    mutating func append(_ line: UnsafeRawBufferPointer, number: EventNumber) {
        withUnsafeBytes(of: (number, Int64(line.count))) { bytes.append(bytes: $0) }
        bytes.append(bytes: line)
    }

    /// Hands every entry to `body`, oldest first, then empties the queue
    /// (keeping its buffer). When `body` throws, the entries it was handed
    /// are gone and the rest stay (still held: a closed stdout discards them).
    @inline(__always)
    mutating func removeAll<E: Error>(_ body: (UnsafeRawBufferPointer, EventNumber) throws(E) -> Void) throws(E) {
        var failure: E?
        let taken = bytes.withWaiting { waiting in
            let raw = UnsafeRawBufferPointer(waiting)
            var at = 0
            while at < raw.count && failure == nil {
                let (number, line, next) = Self.entry(at: at, in: raw)
                do throws(E) { try body(line, number) } catch { failure = error }
                at = next
            }
            return at
        }
        bytes.removeFirst(taken)
        if let failure { throw failure }
    }

    /// Hands every entry to `body`, oldest first, leaving the queue as it is.
    func forEach(_ body: (UnsafeRawBufferPointer, EventNumber) -> Void) {
        bytes.withWaiting { waiting in
            let raw = UnsafeRawBufferPointer(waiting)
            var at = 0
            while at < raw.count {
                let (number, line, next) = Self.entry(at: at, in: raw)
                body(line, number)
                at = next
            }
        }
    }

    /// Empties the queue, keeping its buffer.
    mutating func removeAll() { bytes.removeFirst(bytes.count) }

    /// Hands the oldest entry to `body`, then removes it (also when `body`
    /// throws: the caller gives up the rest then).
    @inline(__always)
    mutating func removeFirst<E: Error>(_ body: (UnsafeRawBufferPointer, EventNumber) throws(E) -> Void) throws(E) {
        var failure: E?
        let taken = bytes.withWaiting { waiting in
            let (number, line, next) = Self.entry(at: 0, in: UnsafeRawBufferPointer(waiting))
            do throws(E) { try body(line, number) } catch { failure = error }
            return next
        }
        bytes.removeFirst(taken)
        if let failure { throw failure }
    }

    /// The entry at byte `at` of `raw`: its number, its bytes, and where
    /// the next one begins.
    @inline(__always)
    private static func entry(at: Int, in raw: UnsafeRawBufferPointer)
        -> (number: EventNumber, line: UnsafeRawBufferPointer, next: Int) {
        let number = raw.loadUnaligned(fromByteOffset: at, as: EventNumber.self)
        let count = Int(raw.loadUnaligned(fromByteOffset: at + 8, as: Int64.self))
        return (number, UnsafeRawBufferPointer(rebasing: raw[(at + 16)..<(at + 16 + count)]), at + 16 + count)
    }
}
