// `unix`, `unix-ms`, `unix-us`, `unix-ns`, `offset` and `record`: numbers, read with integer
// arithmetic and overflow checks, nothing per line allocated.
//
// The numbers replay sees on every line take a fast path that reads digits
// eight at a time (DigitRuns.swift) and needs no per-digit overflow check:
// it accepts only what it can prove fits, and hands anything else (a sign,
// no integer digits, more than 16 of them, more than 9 fraction digits) to
// the digit-by-digit parser, which decides exactly as before.

/// `unix`: seconds with an optional fraction (`1795953600.123456`, `0.090`).
/// `plausibleOnly` is `auto`'s guard: the integer part must have 9 or 10 digits.
@inline(__always)
func parseUnixSeconds(_ text: UnsafeRawBufferPointer, from start: Int, plausibleOnly: Bool) -> FormatResult {
    guard let base = text.baseAddress else { return .noMatch }
    let n = text.count
    if let fast = parseTenDigitSeconds(base, from: start, end: n) { return fast }
    @inline(__always) func isDigit(_ i: Int) -> Bool {
        i < n && base.load(fromByteOffset: i, as: UInt8.self) &- UInt8(ascii: "0") < 10
    }
    // Integer part: one or two words of digits. Up to 16 digits stay below
    // 10^16, far from overflowing before the multiplication into nanoseconds,
    // which is still checked.
    var (seconds, digits) = readDigits(base, at: start, end: n)
    if digits == 0 { return parseUnixSecondsByDigit(text, from: start, plausibleOnly: plausibleOnly) }
    var i = start &+ digits
    if digits == digitRunWord {
        let (more, count) = readDigits(base, at: i, end: n)
        seconds = seconds &* powerOfTen(count) &+ more
        digits &+= count
        i &+= count
        if count == digitRunWord && isDigit(i) {
            return parseUnixSecondsByDigit(text, from: start, plausibleOnly: plausibleOnly)
        }
    }
    // Fraction: up to 9 digits count; a dot with none after it is taken.
    var fraction: UInt64 = 0
    var fractionDigits = 0
    if i < n && base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: ".") {
        i &+= 1
        (fraction, fractionDigits) = readDigits(base, at: i, end: n)
        i &+= fractionDigits
        if fractionDigits == digitRunWord && isDigit(i) {
            // Nanoseconds: a ninth digit. Any further digits are read and
            // ignored, which is the digit-by-digit parser's business.
            fraction = fraction &* 10 &+ UInt64(base.load(fromByteOffset: i, as: UInt8.self) &- UInt8(ascii: "0"))
            fractionDigits = 9
            i &+= 1
            if isDigit(i) { return parseUnixSecondsByDigit(text, from: start, plausibleOnly: plausibleOnly) }
        }
    }
    if plausibleOnly && !(digits == 9 || digits == 10) { return .noMatch }
    let (ns, o) = Int64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    let (total, o2) = ns.addingReportingOverflow(Int64(fraction &* powerOfTen(9 &- fractionDigits)))
    if o || o2 { return .bad(.outOfRange) }
    return .time(Instant(nanoseconds: total), length: i &- start)
}

/// The commonest shape, ten integer digits and a dot (`1795953600.000569`:
/// every unix time from 2001 to 2286), read a word at a time: the first
/// eight digits from one word, the next two and the dot from the next, and
/// six fraction digits (microseconds, the commonest) joined to those two
/// into a second word of eight digits; another fraction is read as
/// `parseUnixSeconds` reads it. Nil for any other shape, when the words
/// would run past `end`, or for seconds near Int64's nanoseconds (the
/// general path then decides, exactly as before). Ten digits pass `auto`'s
/// guard.
@inline(__always)
func parseTenDigitSeconds(_ base: UnsafeRawPointer, from start: Int, end n: Int) -> FormatResult? {
    var leading = LeadingDigits()
    return parseTenDigitSeconds(base, from: start, end: n, leading: &leading)
}

/// The first eight digits of the last ten-digit time read, and their value:
/// a log's next lines mostly share them (they change every 100 seconds), so
/// a reader that keeps this (TimestampReader) does not reckon them again.
/// It starts as eight zeros, whose value is 0: only words read as digits
/// are ever kept, so a word that matches is eight digits of that value.
struct LeadingDigits {
    var word: UInt64 = 0x3030_3030_3030_3030
    var value: UInt64 = 0
}

/// `parseTenDigitSeconds`, taking the first eight digits' value from
/// `leading` when they are the word it holds, and keeping them there when
/// they are new.
@inline(__always)
func parseTenDigitSeconds(_ base: UnsafeRawPointer, from start: Int, end n: Int,
                          leading: inout LeadingDigits) -> FormatResult? {
    guard start &+ 19 <= n else { return nil }
    let high = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start, as: UInt64.self))
    let low = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start &+ 8, as: UInt64.self))
    let after = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: start &+ 11, as: UInt64.self))
    guard (low >> 16) & 0xFF == UInt64(UInt8(ascii: ".")) else { return nil }
    let first: UInt64
    if high == leading.word {
        first = leading.value
    } else {
        guard nonDigitMask(high) == 0 else { return nil }
        first = eightDigitValue(high ^ 0x3030_3030_3030_3030)
        // Below 92,233,720: seconds stay below 9,223,372,000, whose
        // nanoseconds and any fraction fit in an Int64.
        guard first < 92_233_720 else { return nil }
        leading = LeadingDigits(word: high, value: first)
    }
    // Bytes 8 and 9 and the six after the dot, as one word of digits, and
    // no seventh fraction digit.
    let lastEight = (low & 0xFFFF) | ((after & 0xFFFF_FFFF_FFFF) << 16)
    if nonDigitMask(lastEight) == 0 && UInt8(truncatingIfNeeded: after >> 48) &- UInt8(ascii: "0") >= 10 {
        let micros = first &* 100_000_000 &+ eightDigitValue(lastEight ^ 0x3030_3030_3030_3030)
        return .time(Instant(nanoseconds: Int64(micros) &* 1_000), length: 17)
    }
    guard nonDigitMask(low) & 0xFFFF == 0 else { return nil }
    let seconds = first &* 100 &+ ((low & 0xFF) ^ 0x30) &* 10 &+ (((low >> 8) & 0xFF) ^ 0x30)
    var i = start &+ 11
    var (fraction, fractionDigits) = readDigits(base, at: i, end: n)
    i &+= fractionDigits
    if fractionDigits == digitRunWord && i < n {
        let ninth = base.load(fromByteOffset: i, as: UInt8.self) &- UInt8(ascii: "0")
        if ninth < 10 {
            fraction = fraction &* 10 &+ UInt64(ninth)
            fractionDigits = 9
            i &+= 1
            if i < n && base.load(fromByteOffset: i, as: UInt8.self) &- UInt8(ascii: "0") < 10 { return nil }
        }
    }
    let ns = Int64(seconds) &* 1_000_000_000 &+ Int64(fraction &* powerOfTen(9 &- fractionDigits))
    return .time(Instant(nanoseconds: ns), length: i &- start)
}

/// `parseUnixSeconds` one digit at a time, with overflow checks: every shape
/// the fast path leaves to it.
func parseUnixSecondsByDigit(_ text: UnsafeRawBufferPointer, from start: Int, plausibleOnly: Bool) -> FormatResult {
    let n = text.count
    var i = start
    var negative = false
    if !plausibleOnly, i < n, text[i] == UInt8(ascii: "-") { negative = true; i += 1 }
    var seconds: Int64 = 0
    var digits = 0
    var overflow = false
    while i < n, let d = digit(text[i]) {
        if seconds > (Int64.max - 9) / 10 { overflow = true } else { seconds = seconds * 10 + Int64(d) }
        digits += 1
        i += 1
    }
    var fraction: Int64 = 0
    var fractionDigits = 0
    if i < n, text[i] == UInt8(ascii: "."), digits > 0 || !plausibleOnly {
        var j = i + 1
        while j < n, let d = digit(text[j]) {
            if fractionDigits < 9 { fraction = fraction * 10 + Int64(d); fractionDigits += 1 }
            j += 1
        }
        if j > i + 1 || digits > 0 { i = j }
    }
    if digits == 0 && fractionDigits == 0 { return .noMatch }
    if plausibleOnly && !(digits == 9 || digits == 10) { return .noMatch }
    var scale = fractionDigits
    while scale < 9 { fraction *= 10; scale += 1 }
    if overflow { return .bad(.outOfRange) }
    let (ns, o) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    let (total, o2) = ns.addingReportingOverflow(UInt64(fraction))
    guard !o && !o2, let signed = signedNanoseconds(total, negative: negative) else { return .bad(.outOfRange) }
    return .time(Instant(nanoseconds: signed), length: i - start)
}

/// The unit of an integer unix timestamp, and the digit counts `auto` takes
/// as plausible for it.
enum UnixUnit {
    case milliseconds, microseconds, nanoseconds

    var nanoseconds: Int64 {
        switch self {
        case .milliseconds: return 1_000_000
        case .microseconds: return 1_000
        case .nanoseconds: return 1
        }
    }

    /// SPEC: 12 or 13 digits for unix-ms, 15 or 16 for unix-us, 18 or 19
    /// for unix-ns.
    var plausibleDigits: ClosedRange<Int> {
        switch self {
        case .milliseconds: return 12...13
        case .microseconds: return 15...16
        case .nanoseconds: return 18...19
        }
    }
}

/// `unix-ms`, `unix-us`, `unix-ns`: an integer count of `unit`.
/// `plausibleOnly`: `auto`'s digit counts, no sign.
func parseUnixInteger(_ text: UnsafeRawBufferPointer, from start: Int, unit: UnixUnit, plausibleOnly: Bool) -> FormatResult {
    let n = text.count
    var i = start
    var negative = false
    if !plausibleOnly, i < n, text[i] == UInt8(ascii: "-") { negative = true; i += 1 }
    var count: UInt64 = 0
    var digits = 0
    var overflow = false
    while i < n, let d = digit(text[i]) {
        let (times10, o1) = count.multipliedReportingOverflow(by: 10)
        let (next, o2) = times10.addingReportingOverflow(UInt64(d))
        if o1 || o2 { overflow = true } else { count = next }
        digits += 1
        i += 1
    }
    if digits == 0 { return .noMatch }
    if plausibleOnly && !unit.plausibleDigits.contains(digits) { return .noMatch }
    if overflow { return .bad(.outOfRange) }
    let (ns, o) = count.multipliedReportingOverflow(by: UInt64(unit.nanoseconds))
    guard !o, let signed = signedNanoseconds(ns, negative: negative) else { return .bad(.outOfRange) }
    return .time(Instant(nanoseconds: signed), length: i - start)
}

/// `offset`: a duration with its unit since an arbitrary origin (`90ms`,
/// `+1.5s`, `-2s`).
func parseOffset(_ text: UnsafeRawBufferPointer, from start: Int) -> FormatResult {
    let n = text.count
    var i = start
    var negative = false
    if i < n, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
        negative = text[i] == UInt8(ascii: "-")
        i += 1
    }
    let (result, end) = scanDuration(text, from: i, negative: negative)
    switch result {
    case let .success(ns): return .time(Instant(nanoseconds: ns), length: end - start)
    case .failure(.tooLarge): return .bad(.outOfRange)
    case .failure: return .noMatch
    }
}

/// `record`: what `--record` writes, `<seconds>.<fraction>` and a TAB at the
/// start of the line. Returns the time and the offset of the line's content
/// (just past the TAB).
func parseRecordPrefix(_ line: UnsafeRawBufferPointer) -> (Instant, contentStart: Int)? {
    guard case let .time(t, length) = parseUnixSeconds(line, from: 0, plausibleOnly: false) else { return nil }
    guard length < line.count, line[length] == UInt8(ascii: "\t") else { return nil }
    return (t, length + 1)
}
