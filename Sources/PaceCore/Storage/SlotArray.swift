// Per-slot records in a raw buffer (held lines, key bytes, idle links): one
// growth step for all of them, so each type only says what an empty record is.

/// Grows `records` (`allocated` of them, all initialised) to hold `slot`, at
/// least doubling; the new records are `empty`.
@inline(never)
func growRecords<Record>(_ records: inout UnsafeMutablePointer<Record>, allocated: inout Int, toInclude slot: Int,
                         empty: Record) {
    let newAllocated = max(allocated * 2, slot + 1)
    let bigger = UnsafeMutablePointer<Record>.allocate(capacity: newAllocated)
    bigger.moveInitialize(from: records, count: allocated)
    (bigger + allocated).initialize(repeating: empty, count: newAllocated - allocated)
    records.deallocate()
    records = bigger
    allocated = newAllocated
}
