// A first-in-first-out queue of a key's waiting events, for `--rate`: a
// backlog can grow to millions, so appending and taking the oldest are O(1)
// amortised and nothing is copied per event. It is an array with a moving
// start; the space before the start is given back once it is half the
// array, so memory stays within twice the waiting events' (8 bytes each for
// event numbers), and an emptied queue keeps its buffer for the next burst.

package struct EventQueue<Element: Equatable>: Equatable {
    private var storage: [Element] = []
    private var start = 0

    package init() {}

    package var count: Int { storage.count - start }
    package var isEmpty: Bool { start == storage.count }
    /// The oldest element.
    package var first: Element? { isEmpty ? nil : storage[start] }

    @inline(__always)
    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Takes the oldest element out; the queue must not be empty.
    @inline(__always)
    package mutating func removeFirst() -> Element {
        precondition(!isEmpty, "EventQueue: removeFirst on an empty queue")
        let element = storage[start]
        start += 1
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= Self.compactionMinimum && start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
        return element
    }

    /// Below this many taken elements the array is not compacted: moving a
    /// few elements often would cost more than the space.
    private static var compactionMinimum: Int { 1024 }

    /// Equal when the waiting elements are, however they are laid out.
    package static func == (a: EventQueue, b: EventQueue) -> Bool {
        a.storage[a.start...].elementsEqual(b.storage[b.start...])
    }
}

extension EventQueue: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: Element...) {
        storage = elements
    }
}
