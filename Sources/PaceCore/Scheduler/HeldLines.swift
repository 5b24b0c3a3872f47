// The bytes of the events policies hold back, by slot: a key's queue of held
// events, oldest first. Policies hold event numbers, never bytes, so they stay
// pure values; this is where the bytes wait until a timer emits them or a
// later event replaces them.
//
// Four of the policies hold at most one event per key, and they are the hot
// path: a slot's first held event lives in the slot's own record, in a buffer
// the slot keeps and reuses, so holding a line is a memcpy. Only `--rate`
// holds more: the events after the first wait in a per-slot `LineQueue`,
// created when a second event is held and dropped when the slot's queue is
// empty again. `--batch` holds up to N per key, every line of a batch but its
// first in the queue: its queues are indexed by slot instead (no hashing per
// line) and keep their buffers from one batch to the next.
//
// Borrowing. Replay and live mode read lines as slices of the reader's
// buffer, which stays put until the next read. A debounce holds back every
// line and most of them are replaced before that read, so the first held
// line of a slot is kept where it is (borrowed) and copied only by
// `keepBorrowed()`, which the driver calls before the reader reuses its
// buffer.
//
// It is noncopyable: it owns allocated buffers and has exactly one owner, the
// scheduler.

struct HeldLines: ~Copyable {
    /// A slot's record: its first held event and the buffer that keeps it.
    struct Record {
        /// The first held event, or 0 when the slot holds none.
        var number: EventNumber = 0
        /// Where its bytes are: `owned`, or borrowed from the reader.
        var line: UnsafeRawPointer?
        var count: Int = 0
        /// The slot's own buffer, reused from one held line to the next.
        var owned: UnsafeMutableRawPointer?
        var capacity: Int = 0
    }

    /// A buffer larger than this is freed when its slot holds nothing, so
    /// one huge line does not stay allocated for good.
    static var keptCapacity: Int { 64 * 1024 }
    /// Borrowing slots listed before they are copied; past this the lines are
    /// copied at once, which keeps the list small whatever a read brings.
    static var borrowingLimit: Int { 1024 }

    private var records = SlotArray(empty: Record(), capacity: 1)
    /// Slots that may hold a borrowed first line (some no longer do).
    private var borrowing: [Int32] = []
    /// Held events after each slot's first (`--rate`).
    private var more: [Int32: LineQueue] = [:]
    /// `--batch`: held events after each slot's first, by slot.
    private var queues = SlotArray(empty: LineQueue(), capacity: 1)
    /// The queues are `queues`' (`--batch`), not `more`'s.
    private let queuesBySlot: Bool
    /// Events held in all, for `--stats`' backlog.
    private(set) var count = 0

    /// - Parameter batches: a batching policy's lines (`--batch`).
    init(batches: Bool = false) { queuesBySlot = batches }

    deinit {
        records.forEach { $0.owned?.deallocate() }
    }

    /// The number of the first event `slot` holds, or nil.
    @inline(__always)
    func first(_ slot: Int32) -> EventNumber? {
        let s = Int(slot)
        guard s < records.capacity else { return nil }
        let number = records[s].number
        return number == 0 ? nil : number
    }

    /// The bytes of the first event `slot` holds; valid until the next change.
    @inline(__always)
    func firstLine(_ slot: Int32) -> UnsafeRawBufferPointer {
        let record = records[Int(slot)]
        return UnsafeRawBufferPointer(start: record.line, count: record.count)
    }

    /// Holds `line` as the newest event of `slot`. `borrowing`: the bytes stay
    /// valid until `keepBorrowed()` (see above); otherwise they are copied.
    @inline(__always)
    mutating func append(_ line: UnsafeRawBufferPointer, number: EventNumber, to slot: Int32, borrowing: Bool) {
        let s = Int(slot)
        records.reserve(s)
        count += 1
        let record = records.pointer(to: s)
        guard record.pointee.number == 0 else {
            if queuesBySlot {
                queues.reserve(s)
                queues.pointer(to: s).pointee.append(line, number: number)
            } else {
                more[slot, default: LineQueue()].append(line, number: number)
            }
            return
        }
        record.pointee.number = number
        record.pointee.count = line.count
        store(line, in: record, slot, borrowing: borrowing)
    }

    /// Replaces the one event `slot` holds with `line` (a debounce's newer
    /// event): the policies that replace hold at most one per key.
    @inline(__always)
    mutating func replaceOnly(_ slot: Int32, with line: UnsafeRawBufferPointer, number: EventNumber, borrowing: Bool) {
        let record = records.pointer(to: Int(slot))
        record.pointee.number = number
        record.pointee.count = line.count
        store(line, in: record, slot, borrowing: borrowing)
    }

    @inline(__always)
    private mutating func store(_ line: UnsafeRawBufferPointer, in record: UnsafeMutablePointer<Record>, _ slot: Int32,
                                borrowing: Bool) {
        if borrowing {
            if record.pointee.line == nil || record.pointee.line == UnsafeRawPointer(record.pointee.owned) {
                if self.borrowing.count == Self.borrowingLimit { keepBorrowed() }
                self.borrowing.append(slot)
            }
            record.pointee.line = line.baseAddress
        } else {
            Self.copy(line, into: record)
        }
    }

    /// Lets go of the first event of `slot`; the next one held, if any,
    /// becomes the first.
    @inline(__always)
    mutating func dropFirst(_ slot: Int32) {
        let record = records.pointer(to: Int(slot))
        count -= 1
        record.pointee.number = 0
        if _slowPath(!more.isEmpty), more[slot] != nil {
            more[slot]!.removeFirst { line, number in
                record.pointee.number = number
                record.pointee.count = line.count
                Self.copy(line, into: record)
            }
            if more[slot]!.isEmpty { more[slot] = nil }
        }
    }

    // MARK: - Batches
    //
    // A `--batch` goes out oldest first: the first line from the slot's
    // record, then the queue behind it, its lines written from where they
    // are (no copy into the record); the emptied queue keeps its buffer for
    // the key's next batch. Each line stops counting as held as its write
    // begins.

    /// Lets go of the first event of `slot`, leaving the ones behind it in
    /// its queue (`takeQueue`).
    @inline(__always)
    mutating func dropFirstOfBatch(_ slot: Int32) {
        records.pointer(to: Int(slot)).pointee.number = 0
        count -= 1
    }

    /// The queue of the events held behind the first of `slot` (`--batch`),
    /// valid until the next `append`: the batch's writer empties it in place.
    @inline(__always)
    func queue(_ slot: Int32) -> UnsafeMutablePointer<LineQueue> {
        precondition(queuesBySlot && Int(slot) < queues.capacity, "HeldLines: slot \(slot) has no batch queue")
        return queues.pointer(to: Int(slot))
    }

    /// One line of a batch's queue is being written: it is no longer held.
    @inline(__always)
    mutating func queuedLineGone() { count -= 1 }

    /// The key of `slot` is forgotten: the queue its batches used keeps a
    /// small buffer for the slot's next key, not a large one.
    @inline(__always)
    mutating func releaseQueue(_ slot: Int32) {
        let s = Int(slot)
        guard s < queues.capacity else { return }
        if queues[s].storageBytes > Self.keptQueueCapacity { queues[s] = LineQueue() }
    }

    /// An emptied batch queue larger than this is freed when its key is.
    static var keptQueueCapacity: Int { 4096 }

    /// The slot is forgotten (idle): an oversized buffer is freed.
    @inline(__always)
    mutating func release(_ slot: Int32) {
        let s = Int(slot)
        guard s < records.capacity else { return }
        let record = records.pointer(to: s)
        record.pointee.line = nil
        if record.pointee.capacity > Self.keptCapacity {
            record.pointee.owned?.deallocate()
            record.pointee.owned = nil
            record.pointee.capacity = 0
        }
    }

    /// Copies every borrowed line a slot still holds into the slot's own
    /// buffer: the reader is about to reuse its buffer.
    mutating func keepBorrowed() {
        // A listed slot's `line` is a borrowed pointer (held or stale) or
        // already its own buffer; afterwards it is its own buffer, which is
        // how `append` knows a slot is not listed.
        for slot in borrowing {
            let record = records.pointer(to: Int(slot))
            guard let line = record.pointee.line, line != UnsafeRawPointer(record.pointee.owned) else { continue }
            if record.pointee.number != 0 {
                Self.copy(UnsafeRawBufferPointer(start: line, count: record.pointee.count), into: record)
            } else {
                record.pointee.line = UnsafeRawPointer(record.pointee.owned)
            }
        }
        borrowing.removeAll(keepingCapacity: true)
    }

    // MARK: - A closed stdout

    /// Every event held, as its slot, number and bytes: each slot's first,
    /// then those queued behind it; but not the first of slot `writing`,
    /// whose write was under way (it counts as emitted).
    func forEachHeld(but writing: Int32, _ body: (Int32, EventNumber, UnsafeRawBufferPointer) -> Void) {
        for s in 0..<records.capacity where records[s].number != 0 && Int32(s) != writing {
            body(Int32(s), records[s].number, UnsafeRawBufferPointer(start: records[s].line, count: records[s].count))
        }
        for (slot, queue) in more { queue.forEach { body(slot, $1, $0) } }
        if queuesBySlot {
            for s in 0..<queues.capacity { queues[s].forEach { body(Int32(s), $1, $0) } }
        }
    }

    /// Lets go of every held event; the buffers stay.
    mutating func removeAll() {
        for s in 0..<records.capacity { records.pointer(to: s).pointee.number = 0 }
        more = [:]
        if queuesBySlot {
            for s in 0..<queues.capacity { queues.pointer(to: s).pointee.removeAll() }
        }
        count = 0
    }

    /// The bytes of every slot's own buffer (for memory tests).
    var bufferBytes: Int {
        var bytes = 0
        records.forEach { bytes += $0.capacity }
        return bytes
    }

    /// The bytes allocated for the events held after each slot's first (for
    /// memory tests).
    var queueBytes: Int {
        var bytes = more.values.reduce(0) { $0 + $1.storageBytes }
        queues.forEach { bytes += $0.storageBytes }
        return bytes
    }

    @inline(__always)
    private static func copy(_ line: UnsafeRawBufferPointer, into record: UnsafeMutablePointer<Record>) {
        let n = line.count
        if n > record.pointee.capacity {
            // Sized to the line, not rounded up to a minimum: a million keys
            // each holding a 60-byte line must not take 128 bytes apiece. It
            // doubles when lines grow, so a growing key reallocates rarely.
            let capacity = max(n, min(record.pointee.capacity * 2, keptCapacity))
            record.pointee.owned?.deallocate()
            let base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            record.pointee.owned = base
            record.pointee.capacity = capacity
        }
        if n > 0 { record.pointee.owned!.copyMemory(from: line.baseAddress!, byteCount: n) }
        record.pointee.line = UnsafeRawPointer(record.pointee.owned)
    }
}
