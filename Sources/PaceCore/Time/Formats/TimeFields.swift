// Readers for the pieces every calendar stamp is made of: numbers of a fixed
// or bounded width, second fractions, UTC offsets, month and weekday names.
// The named formats and the compiled patterns share them. Each looks at a few
// bytes in place and returns what it read and where it stopped: no String, no
// allocation.

/// A line as the scanners read it. An UnsafeRawBufferPointer unwraps its
/// optional base address and recomputes its count on every subscript; with a
/// dozen reads per stamp and a stamp per line, that was a good part of the
/// cost. This takes both once, and reading past the end gives 0, a byte no
/// format looks for, so the scanners need no length checks of their own.
struct StampBytes {
    private let base: UnsafeRawPointer?
    let count: Int

    @inline(__always)
    init(_ text: UnsafeRawBufferPointer) {
        base = text.baseAddress
        count = text.count
    }

    /// The byte at `i` (never negative), or 0 past the end.
    @inline(__always)
    subscript(i: Int) -> UInt8 {
        i < count ? base.unsafelyUnwrapped.load(fromByteOffset: i, as: UInt8.self) : 0
    }
}

/// The value of the two digits at `i`, or nil.
@inline(__always)
func twoDigits(_ text: StampBytes, at i: Int) -> Int? {
    let tens = text[i] &- UInt8(ascii: "0"), units = text[i + 1] &- UInt8(ascii: "0")
    guard tens < 10, units < 10 else { return nil }
    return Int(tens) &* 10 &+ Int(units)
}

/// The value of the four digits at `i`, or nil.
@inline(__always)
func fourDigits(_ text: StampBytes, at i: Int) -> Int? {
    guard let high = twoDigits(text, at: i), let low = twoDigits(text, at: i + 2) else { return nil }
    return high &* 100 &+ low
}

/// `HH:MM:SS`, two digits each, at `i` (syslog and clf write the clock so).
@inline(__always)
func clockTime(_ text: StampBytes, at i: Int) -> (hour: Int, minute: Int, second: Int)? {
    guard let hour = twoDigits(text, at: i),
          text[i + 2] == UInt8(ascii: ":"),
          let minute = twoDigits(text, at: i + 3),
          text[i + 5] == UInt8(ascii: ":"),
          let second = twoDigits(text, at: i + 6)
    else { return nil }
    return (hour, minute, second)
}

/// One to `maxDigits` (at most 18) digits at `i`, as many as there are: the
/// value and the end. Greedy, so `%m%d` reads `1109` as November 9.
@inline(__always)
func shortNumber(_ text: StampBytes, at i: Int, maxDigits: Int) -> (value: Int, end: Int)? {
    var value = 0
    var j = i
    while j - i < maxDigits, let d = digit(text[j]) {
        value = value &* 10 &+ Int(d)
        j += 1
    }
    return j > i ? (value, j) : nil
}

/// Fraction digits at `i` (at least one, any number): the fraction of a
/// second truncated to nanoseconds, and the end.
@inline(__always)
func fractionDigits(_ text: StampBytes, at i: Int) -> (nanoseconds: Int64, end: Int)? {
    var value: Int64 = 0
    var j = i
    while let d = digit(text[j]) {
        // Digits past the ninth are below a nanosecond: read and dropped.
        if j - i < 9 { value = value &* 10 &+ Int64(d) }
        j += 1
    }
    guard j > i else { return nil }
    // Scale what was read up to nanoseconds: `.5` is 500000000.
    var scaled = j - i
    while scaled < 9 {
        value &*= 10
        scaled += 1
    }
    return (value, j)
}

/// A fraction introduced by a separator at `i`: `.`, or also `,` when
/// `allowComma`. A separator without a digit after it is no fraction, and
/// the stamp ends before it: `04:30:30, Info` ends at the comma.
@inline(__always)
func separatedFraction(_ text: StampBytes, at i: Int, allowComma: Bool) -> (nanoseconds: Int64, end: Int)? {
    let b = text[i]
    guard b == UInt8(ascii: ".") || (allowComma && b == UInt8(ascii: ",")) else { return nil }
    return fractionDigits(text, at: i + 1)
}

/// A UTC offset at `i`: `Z`, `+hh`, `+hhmm`, `+hh:mm` or the same with `-`.
/// Out-of-range hours or minutes are read as written and refused later as
/// impossible. `+01:` with no minutes is read as `+01`, the colon left over.
@inline(__always)
func utcOffset(_ text: StampBytes, at i: Int, allowZ: Bool = true) -> (sign: Int, hours: Int, minutes: Int, end: Int)? {
    let b = text[i]
    if allowZ && (b == UInt8(ascii: "Z") || b == UInt8(ascii: "z")) { return (1, 0, 0, i + 1) }
    guard b == UInt8(ascii: "+") || b == UInt8(ascii: "-") else { return nil }
    let sign = b == UInt8(ascii: "-") ? -1 : 1
    guard let hours = twoDigits(text, at: i + 1) else { return nil }
    if let minutes = twoDigits(text, at: i + 3) { return (sign, hours, minutes, i + 5) }
    if text[i + 3] == UInt8(ascii: ":"), let minutes = twoDigits(text, at: i + 4) {
        return (sign, hours, minutes, i + 6)
    }
    return (sign, hours, 0, i + 3)
}

/// Where the `+` or `-` after the spaces (one or more) at `i` is: a zone
/// written apart from its time (`12:00:00 +0100`). Nil when there is no
/// space at `i` or no sign after the spaces. Any number of spaces: aligned
/// columns pad with more than one, and a zone left over as text would put
/// the time hours off without a word. Not a TAB: that starts another column.
@inline(__always)
func signAfterSpaces(_ text: StampBytes, at i: Int) -> Int? {
    var j = i
    while text[j] == UInt8(ascii: " ") { j += 1 }
    guard j > i, text[j] == UInt8(ascii: "+") || text[j] == UInt8(ascii: "-") else { return nil }
    return j
}

extension CivilStamp {
    mutating func setZone(_ zone: (sign: Int, hours: Int, minutes: Int, end: Int)) {
        zoneSign = zone.sign
        zoneHours = zone.hours
        zoneMinutes = zone.minutes
    }
}

// MARK: - Names

// English month and weekday names, any case. A name is recognised by its
// first three letters, which are also its abbreviation; the full name is
// taken when the text goes on to spell all of it. Switches rather than
// tables: nothing to look up through a global, nothing retained per line.

/// Three bytes folded to lowercase. Setting bit 0x20 turns an ASCII capital
/// into its small letter and leaves small letters as they are; the callers
/// check that the bytes are letters at all.
@inline(__always)
private func lowercased3(_ text: StampBytes, at i: Int) -> (UInt8, UInt8, UInt8)? {
    let a = text[i], b = text[i + 1], c = text[i + 2]
    guard isASCIILetter(a), isASCIILetter(b), isASCIILetter(c) else { return nil }
    return (a | 0x20, b | 0x20, c | 0x20)
}

/// The end of the full name `name` (lowercase) at `i`, whose first three
/// letters were already read, or `i + 3` when the text spells only those.
@inline(__always)
private func fullNameEnd(_ text: StampBytes, at i: Int, _ name: StaticString) -> Int {
    let count = name.utf8CodeUnitCount
    for k in 3..<count where text[i + k] | 0x20 != name.utf8Start[k] { return i + 3 }
    return i + count
}

/// A month at `i`: 1 ... 12 and the end. Abbreviations only (`Nov`), as the
/// named formats write them, or also full names (`November`) for `%b`.
@inline(__always)
func monthName(_ text: StampBytes, at i: Int, fullNames: Bool) -> (month: Int, end: Int)? {
    guard let letters = lowercased3(text, at: i) else { return nil }
    let month: Int
    let name: StaticString
    switch letters {
    case (UInt8(ascii: "j"), UInt8(ascii: "a"), UInt8(ascii: "n")): (month, name) = (1, "january")
    case (UInt8(ascii: "f"), UInt8(ascii: "e"), UInt8(ascii: "b")): (month, name) = (2, "february")
    case (UInt8(ascii: "m"), UInt8(ascii: "a"), UInt8(ascii: "r")): (month, name) = (3, "march")
    case (UInt8(ascii: "a"), UInt8(ascii: "p"), UInt8(ascii: "r")): (month, name) = (4, "april")
    case (UInt8(ascii: "m"), UInt8(ascii: "a"), UInt8(ascii: "y")): (month, name) = (5, "may")
    case (UInt8(ascii: "j"), UInt8(ascii: "u"), UInt8(ascii: "n")): (month, name) = (6, "june")
    case (UInt8(ascii: "j"), UInt8(ascii: "u"), UInt8(ascii: "l")): (month, name) = (7, "july")
    case (UInt8(ascii: "a"), UInt8(ascii: "u"), UInt8(ascii: "g")): (month, name) = (8, "august")
    case (UInt8(ascii: "s"), UInt8(ascii: "e"), UInt8(ascii: "p")): (month, name) = (9, "september")
    case (UInt8(ascii: "o"), UInt8(ascii: "c"), UInt8(ascii: "t")): (month, name) = (10, "october")
    case (UInt8(ascii: "n"), UInt8(ascii: "o"), UInt8(ascii: "v")): (month, name) = (11, "november")
    case (UInt8(ascii: "d"), UInt8(ascii: "e"), UInt8(ascii: "c")): (month, name) = (12, "december")
    default: return nil
    }
    return (month, fullNames ? fullNameEnd(text, at: i, name) : i + 3)
}

/// The end of a weekday name or abbreviation at `i` (`Sun`, `sunday`). Its
/// value is not needed: the date says which day it was.
@inline(__always)
func weekdayNameEnd(_ text: StampBytes, at i: Int) -> Int? {
    guard let letters = lowercased3(text, at: i) else { return nil }
    let name: StaticString
    switch letters {
    case (UInt8(ascii: "m"), UInt8(ascii: "o"), UInt8(ascii: "n")): name = "monday"
    case (UInt8(ascii: "t"), UInt8(ascii: "u"), UInt8(ascii: "e")): name = "tuesday"
    case (UInt8(ascii: "w"), UInt8(ascii: "e"), UInt8(ascii: "d")): name = "wednesday"
    case (UInt8(ascii: "t"), UInt8(ascii: "h"), UInt8(ascii: "u")): name = "thursday"
    case (UInt8(ascii: "f"), UInt8(ascii: "r"), UInt8(ascii: "i")): name = "friday"
    case (UInt8(ascii: "s"), UInt8(ascii: "a"), UInt8(ascii: "t")): name = "saturday"
    case (UInt8(ascii: "s"), UInt8(ascii: "u"), UInt8(ascii: "n")): name = "sunday"
    default: return nil
    }
    return fullNameEnd(text, at: i, name)
}
