// Keys from lines, held against the naive ReferenceModel: random streams of
// blank-separated, comma-separated, JSON and logfmt lines, keyed by field
// lists, ranges and NAMEs, through KeyExtractor and the Scheduler; the model
// gets keys computed here, from SPEC's Fields prose alone: a plain split for
// numbered fields, Foundation's JSON parser for members, a character walk for
// logfmt. Each key is also shown as its values joined by one space.

import Foundation
import PaceCore
import PaceTesting
import Testing

private enum LineShape: String, CaseIterable, CustomTestStringConvertible {
    case blanks, comma, json, logfmt
    var testDescription: String { rawValue }
}

/// One random stream: its lines, their keys as the reference computes them,
/// and the field list.
private struct KeyCase: CustomStringConvertible {
    var shape: LineShape
    var fields: String
    var policy: ReferencePolicy
    var events: [ReferenceEvent]
    /// The key as shown, per event.
    var shown: [String]

    var description: String { "\(shape) --key-field \(fields) \(policy): \(events)" }

    static let selectors: [LineShape: [String]] = [
        .blanks: ["2", "1,3", "2-", "1-3", "3-,1", "2,2", "4-9"],
        .comma: ["2", "1,3", "2-", "1-3", "3-,1", "2-,3-"],
        .json: ["host", "host,svc", "k.pod,host", "msg", "svc,2", "k.pod"],
        .logfmt: ["host", "host,svc", "msg,host", "1", "svc,2-", "k.pod"],
    ]

    /// Values that stress decoding, quoting and composite keys.
    static let values = ["a", "b", "a b", "", "x\"y", "back\\slash", "é", "tab\there", "a,b", "c"]

    init(shape: LineShape, variant: PolicyVariant, seed: UInt64) {
        self.shape = shape
        let shapeIndex = UInt64(LineShape.allCases.firstIndex(of: shape)!)
        let variantIndex = UInt64(PolicyVariant.allCases.firstIndex(of: variant)!)
        var rng = SplitMix64(seed: seed &* 0x1_0000 &+ shapeIndex &* 16 &+ variantIndex)
        let choices = Self.selectors[shape]!
        fields = choices[rng.below(choices.count)]
        let g: Nanoseconds = 10
        let window = g * Int64(1 + rng.below(4))
        switch variant {
        case .debounce: policy = .debounce(window: window, maxWait: nil)
        case .debounceMaxWait: policy = .debounce(window: window, maxWait: window + g * Int64(rng.below(4)))
        case .leading: policy = .leading(window: window)
        case .leadingTrailing: policy = .leadingTrailing(window: window)
        case .throttleFirst: policy = .throttleFirst(window: window)
        case .throttleLast: policy = .throttleLast(window: window)
        case .limit: policy = .limit(count: 2, period: window * 2, burst: 2)
        case .rate: policy = .rate(count: 2, period: window * 2, burst: 1)
        case .debounceBatch, .debounceMaxWaitBatch, .throttleLastBatch:
            preconditionFailure("KeyCase: the keys are checked on the variants without --batch")
        }
        var time: Instant = 0
        events = []
        shown = []
        for i in 0..<rng.below(30) {
            if rng.below(3) > 0 { time += g * Int64(rng.below(Int((2 * window) / g) + 1)) }
            let line = Self.line(shape, number: i, &rng)
            let values = referenceKey(line, shape: shape, fields: fields)
            events.append(ReferenceEvent(time: time, key: "\(values)", line: line))
            shown.append(values.joined().joined(separator: " "))
        }
    }

    /// A random line of `shape`.
    static func line(_ shape: LineShape, number: Int, _ rng: inout SplitMix64) -> String {
        func value() -> String { values[rng.below(values.count)] }
        let cr = rng.below(5) == 0 ? "\r" : ""
        switch shape {
        case .blanks:
            let tokens = ["a", "b", "ab", "é", "x\"y", "c"]
            let lead = ["", " ", "\t "][rng.below(3)]
            return lead + (0..<1 + rng.below(5)).map { _ in tokens[rng.below(tokens.count)] }
                .joined(separator: [" ", "  ", "\t"][rng.below(3)]) + cr
        case .comma:
            let tokens = ["a", "b", "", "a b", "é", " "]
            return (0..<1 + rng.below(5)).map { _ in tokens[rng.below(tokens.count)] }.joined(separator: ",") + cr
        case .json:
            var members: [String] = []
            for name in ["host", "svc", "msg", "k"].shuffledBy(&rng) where rng.below(4) > 0 {
                let v = name == "k" && rng.below(2) == 0
                    ? "{\"x\":[1,{\"pod\":\"no\"}],\"pod\":\(jsonString(value(), &rng))}" : jsonString(value(), &rng)
                members.append("\(jsonString(name, &rng)):\(v)")
            }
            members.insert("\"n\":\(number)", at: rng.below(members.count + 1))
            if rng.below(4) == 0 { members.insert("\"z\":[true,null,-1.5e3,{}]", at: rng.below(members.count + 1)) }
            return [" ", ""][rng.below(2)] + "{" + members.joined(separator: [",", ", "][rng.below(2)]) + "}" + cr
        case .logfmt:
            var pairs: [String] = ["n=e\(number)"]
            for name in ["host", "svc", "msg", "k.pod", "flag"].shuffledBy(&rng) where rng.below(4) > 0 {
                pairs.append(name == "flag" ? "flag" : "\(name)=\(logfmtValue(value(), &rng))")
            }
            if rng.below(5) == 0 { pairs.append("note=\"host=inside quotes\"") }
            return pairs.shuffledBy(&rng).joined(separator: [" ", "  ", "\t"][rng.below(3)]) + cr
        }
    }

    /// A JSON string for `text`, escaped in one of the ways writers do.
    static func jsonString(_ text: String, _ rng: inout SplitMix64) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\t": out += rng.below(2) == 0 ? "\\t" : "\\u0009"
            default:
                if rng.below(6) == 0 && scalar.value < 0x10000 {
                    out += String(format: rng.below(2) == 0 ? "\\u%04x" : "\\u%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A logfmt value for `text`: bare when it can be, else quoted.
    static func logfmtValue(_ text: String, _ rng: inout SplitMix64) -> String {
        let needsQuotes = text.isEmpty || text.contains(where: { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\\" })
        guard needsQuotes || rng.below(4) == 0 else { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension Array {
    /// Fisher-Yates with SplitMix64: the same order on every toolchain.
    fileprivate func shuffledBy(_ rng: inout SplitMix64) -> [Element] {
        var copy = self
        for i in stride(from: copy.count - 1, to: 0, by: -1) { copy.swapAt(i, rng.below(i + 1)) }
        return copy
    }
}

// MARK: - The reference keys, from SPEC's prose

/// The key of `line`: per item, its values. SPEC: a missing field and an
/// empty one are the same value, so a range's trailing empty values say
/// nothing and are dropped.
private func referenceKey(_ line: String, shape: LineShape, fields: String) -> [[String]] {
    var text = line
    if text.hasSuffix("\r") { text.removeLast() }  // a `\r` ending the line belongs to no field
    let split: [String]
    if shape == .comma {
        split = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    } else {
        split = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }
    func field(_ n: Int) -> String { n <= split.count ? split[n - 1] : "" }
    func trimmed(_ values: [String]) -> [String] {
        var values = values
        while values.last == "" { values.removeLast() }
        return values
    }
    return fields.split(separator: ",").map { item -> [String] in
        let parts = item.split(separator: "-", omittingEmptySubsequences: false)
        if let n = Int(parts[0]) {
            if parts.count == 1 { return [field(n)] }
            let last = parts[1].isEmpty ? max(split.count, n) : Int(parts[1])!
            return trimmed((n...last).map(field))
        }
        let name = String(item)
        let structured = text.drop(while: { $0 == " " || $0 == "\t" }).first == "{"
        return [structured ? jsonValue(text, name) : logfmtValue(text, name)]
    }
}

/// SPEC: dots step into nested objects; a string is its decoded text.
private func jsonValue(_ text: String, _ name: String) -> String {
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return "" }
    var current: Any = object
    for level in name.split(separator: ".") {
        guard let members = current as? [String: Any], let next = members[String(level)] else { return "" }
        current = next
    }
    return current as? String ?? ""
}

/// SPEC: pairs separated by blanks, `key=value` or a bare key; a value bare
/// or double-quoted with `\"` and `\\` decoded; the first pair of the name.
private func logfmtValue(_ text: String, _ name: String) -> String {
    var chars = Array(text)[...]
    while true {
        while let c = chars.first, c == " " || c == "\t" { chars.removeFirst() }
        if chars.isEmpty { return "" }
        var key = ""
        while let c = chars.first, c != "=", c != " ", c != "\t" { key.append(chars.removeFirst()) }
        var value = ""
        if chars.first == "=" {
            chars.removeFirst()
            if chars.first == "\"" {
                chars.removeFirst()
                while true {
                    guard let c = chars.popFirst() else { return "" }  // unterminated: the pairs end
                    if c == "\"" { break }
                    if c == "\\", let next = chars.first, next == "\"" || next == "\\" {
                        value.append(chars.removeFirst())
                    } else {
                        value.append(c)
                    }
                }
            } else {
                while let c = chars.first, c != " ", c != "\t" { value.append(chars.removeFirst()) }
            }
        }
        if key == name { return value }
    }
}

// MARK: - Production

private func productionEmissions<P: Policy>(_ policy: P, _ c: KeyCase) -> ([Emitted], [String])
where P.Payload == EventNumber {
    guard case let .success(selector) = FieldSelector.parse(c.fields) else { preconditionFailure(c.fields) }
    let extractor = KeyExtractor(selector, delimiter: c.shape == .comma ? UInt8(ascii: ",") : nil)
    var scheduler = Scheduler(policy: policy, keys: ManyKeys<P.State>.self, sink: RecordingSink())
    var shown: [String] = []
    for (i, event) in c.events.enumerated() {
        var line = event.line
        line.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            let key = extractor.key(of: raw)
            shown.append(String(decoding: extractor.shown(Array(key)), as: UTF8.self))
            try! scheduler.send(raw, key: key, at: event.time, number: EventNumber(i + 1))
        }
    }
    try! scheduler.finish()
    return (scheduler.sink.emissions, shown)
}

private func production(_ c: KeyCase) -> ([Emitted], [String]) {
    switch c.policy {
    case let .debounce(d, m): return productionEmissions(Debounce(window: d, maxWait: m), c)
    case let .leading(d): return productionEmissions(Leading(window: d), c)
    case let .leadingTrailing(d): return productionEmissions(LeadingTrailing(window: d), c)
    case let .throttleFirst(d): return productionEmissions(ThrottleFirst(window: d), c)
    case let .throttleLast(d): return productionEmissions(ThrottleLast(window: d), c)
    case let .limit(n, d, b): return productionEmissions(Limit(rate: CellRate(count: n, per: d, burst: b)), c)
    case let .rate(n, d, b): return productionEmissions(Rate(rate: CellRate(count: n, per: d, burst: b)), c)
    }
}

@Suite struct RandomizedKeyTests {
    static let seeds: UInt64 = 150

    @Test(arguments: LineShape.allCases, PolicyVariant.unbatched)
    fileprivate func keysMatchTheReference(shape: LineShape, variant: PolicyVariant) {
        var failures = 0
        var distinctKeys = 0
        for seed in 1...Self.seeds {
            let c = KeyCase(shape: shape, variant: variant, seed: seed)
            let expected = ReferenceModel.emissions(of: c.events, policy: c.policy, keyed: true)
            let (actual, shown) = production(c)
            distinctKeys += Set(c.events.map(\.key)).count
            if actual != expected || shown != c.shown {
                failures += 1
                if failures <= 3 {
                    let at = (0..<min(expected.count, actual.count)).first { expected[$0] != actual[$0] } ?? min(expected.count, actual.count)
                    func show(_ e: [Emitted]) -> String {
                        at < e.count ? "\(e[at].time) \(String(decoding: e[at].line, as: UTF8.self).debugDescription)" : "none"
                    }
                    Issue.record("""
                        seed \(seed): \(c.shape) --key-field \(c.fields) \(c.policy), \(c.events.count) events
                        events: \(c.events.map { "\($0.time) \($0.key) \($0.line.debugDescription)" }.joined(separator: "\n"))
                        emission \(at) of \(expected.count) expected: \(show(expected))
                        emission \(at) of \(actual.count)   actual: \(show(actual))
                        shown keys expected \(c.shown), actual \(shown)
                        """)
                }
            }
        }
        #expect(failures == 0)
        // The streams must hold several keys, or they prove little.
        #expect(distinctKeys > Int(Self.seeds) * 2)
    }
}

