// A first-in-first-out queue: an array with a moving head, so appending and
// taking the oldest are O(1) amortised and nothing is copied per element. It
// is the one queue of the code: `--rate`'s waiting events per key (a
// policy's state), and the bytes of the lines held behind a slot's first
// (HeldLines, a byte FIFO of records).
//
// One compaction rule, in bytes whatever the element: once the part taken is
// at least `compactionBytes` and half the array, what is left moves to the
// front; and storage far larger than what is left (a long backlog that
// drained to a few elements) is given up for storage of its size, or the
// longest backlog's bytes would stay allocated for as long as anything
// waits. An emptied queue keeps its buffer for the next burst.

package struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    package init() {}

    package init(_ elements: [Element]) { storage = elements }

    package var count: Int { storage.count - head }
    package var isEmpty: Bool { head == storage.count }
    /// The oldest element.
    package var first: Element? { isEmpty ? nil : storage[head] }
    /// The elements allocated (for memory tests).
    package var capacity: Int { storage.capacity }

    @inline(__always)
    package mutating func append(_ element: Element) { storage.append(element) }

    package mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        storage.append(contentsOf: elements)
    }

    /// Takes the oldest element out; the queue must not be empty.
    @inline(__always)
    package mutating func removeFirst() -> Element {
        precondition(!isEmpty, "FIFO: removeFirst on an empty queue")
        let element = storage[head]
        removeFirst(1)
        return element
    }

    /// Drops the `n` oldest elements (at most `count`).
    @inline(__always)
    package mutating func removeFirst(_ n: Int) {
        head += n
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head * MemoryLayout<Element>.stride >= Self.compactionBytes && head * 2 >= storage.count {
            compact()
        }
    }

    /// Runs `body` on the waiting elements, oldest first, without a copy.
    package func withWaiting<R>(_ body: (UnsafeBufferPointer<Element>) -> R) -> R {
        storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[head...])) }
    }

    /// The waiting elements, oldest first.
    package var waiting: ArraySlice<Element> { storage[head...] }

    @inline(never)
    private mutating func compact() {
        let left = storage.count - head
        if (storage.capacity - 4 * left) * MemoryLayout<Element>.stride > Self.keptSlackBytes {
            storage = Array(storage[head...])
        } else {
            storage.removeFirst(head)
        }
        head = 0
    }

    /// Below this many bytes taken the array is not compacted: moving a few
    /// elements often would cost more than the space.
    private static var compactionBytes: Int { 4096 }
    /// Storage kept past four times what waits, so that a short steady
    /// backlog compacts in place without reallocating.
    private static var keptSlackBytes: Int { 64 * 1024 }
}

extension FIFO where Element == UInt8 {
    /// Appends raw bytes with one copy (a byte FIFO's records).
    @inline(__always)
    package mutating func append(bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                       count: bytes.count))
    }
}

extension FIFO: Equatable where Element: Equatable {
    /// Equal when the waiting elements are, however they are laid out.
    package static func == (a: FIFO, b: FIFO) -> Bool { a.waiting.elementsEqual(b.waiting) }
}

extension FIFO: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: Element...) { storage = elements }
}
