// The man page, the shell completions and the README live outside the flag
// table, so nothing else would notice when a flag is added, renamed or dropped
// and they fall behind. These tests hold them to the table (and to the named
// time formats and --on-bad-time actions), and check that the shell files
// parse. The README is also held to its shape: short enough to read top to
// bottom, opening with the example CI runs, its links into docs/ alive.
// The bash completion is run, not just read: bash is always at hand. zsh,
// fish and groff often are not, so their checks run only where they are
// installed (.ci/run installs fish where it can).

import Foundation
import Testing
@testable import PaceCore

// MARK: - The files

/// The repository's root, found from this file's path, so the tests read the
/// files of the checkout they were built from.
private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // CommandLine
    .deletingLastPathComponent()  // PaceCoreTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()

private enum Document: String, CaseIterable {
    case manPage = "share/man/man1/pace.1"
    case bashCompletion = "share/bash-completion/completions/pace"
    case zshCompletion = "share/zsh/site-functions/_pace"
    case fishCompletion = "share/fish/vendor_completions.d/pace.fish"
    case installScript = "Scripts/install"
    case packageScript = "Scripts/package"
    case readme = "README.md"
    case ciScript = ".ci/run"

    var path: String { repositoryRoot.appendingPathComponent(rawValue).path }

    func text() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
}

private let allFlagNames: [String] = flagTable.flatMap(\.names)
private let timeFormatNames: [String] = TimeFormat.names.map(\.0)
private let badTimeActions: [String] = BadTimeAction.allCases.map(\.rawValue)

// MARK: - Running tools

private struct ToolResult {
    var status: Int32
    /// stdout and stderr together.
    var output: String
}

/// Runs `executable` with `arguments`. stdout and stderr share one pipe, read
/// to its end before waiting, so neither can fill up and stall the child.
private func run(_ executable: String, _ arguments: [String]) throws -> ToolResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ToolResult(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
}

/// The first of `candidates` found executable, else `name` on PATH.
private func findTool(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let directories = ["/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"] + path.split(separator: ":").map(String.init)
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

private let bash = findTool("bash") ?? "/bin/bash"
private let zsh = findTool("zsh")
private let fish = findTool("fish")
private let groff = findTool("groff")

/// What the bash completion offers for `pace <words>`, the last word being
/// the one under the cursor. The words are given as bash would split them:
/// `--flag=value` with '=' a word break (the default) is `--flag` `=` `value`.
private func bashCompletions(_ words: [String]) throws -> [String] {
    let script = #"""
        source "$0" || exit 1
        COMP_WORDS=(pace "$@")
        COMP_CWORD=$#
        COMPREPLY=()
        _pace
        (( ${#COMPREPLY[@]} == 0 )) || printf '%s\n' "${COMPREPLY[@]}"
        """#
    let result = try run(bash, ["-c", script, Document.bashCompletion.path] + words)
    guard result.status == 0 else { throw ToolFailure(result.output) }
    return result.output.split(separator: "\n").map(String.init)
}

/// What the fish completion offers for the command line `line` (the cursor at
/// its end), each candidate without its description.
private func fishCompletions(_ line: String) throws -> [String] {
    let script = #"source $argv[1]; or exit 1; complete -C $argv[2]"#
    let result = try run(fish!, ["--no-config", "-c", script, Document.fishCompletion.path, line])
    guard result.status == 0 else { throw ToolFailure(result.output) }
    return result.output.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
}

/// The fish completion's `complete -c pace` lines, each as its words.
private func fishCompleteLines(_ text: String) -> [[Substring]] {
    text.split(separator: "\n").filter { $0.hasPrefix("complete -c pace ") }
        .map { $0.split(separator: " ") }
}

private struct ToolFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Reading the documents

extension Character {
    /// A character that can continue a flag's name: `--throttle` is not
    /// mentioned by `--throttle-last`.
    fileprivate var continuesName: Bool { isLetter || isNumber || self == "-" || self == "_" }
}

/// Whether `name` occurs in `text` as a whole word, and (if given) followed
/// by one of `followers`.
private func mentions(_ text: String, _ name: String, followedBy followers: String? = nil) -> Bool {
    text.ranges(of: name).contains { range in
        let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
        let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
        if before?.continuesName == true || after?.continuesName == true { return false }
        guard let followers else { return true }
        return after.map { followers.contains($0) } ?? false
    }
}

/// The man page as a reader sees its words: `\-` is a hyphen, and font
/// changes and the no-hyphenation mark `\%` vanish.
private func manPageWords(_ source: String) -> String {
    var text = source.replacingOccurrences(of: "\\-", with: "-")
    for escape in ["\\%", "\\&", "\\fB", "\\fI", "\\fR", "\\fP"] {
        text = text.replacingOccurrences(of: escape, with: "")
    }
    return text
}

/// The tags of the man page's items: the line after each `.TP` or `.TQ`,
/// without its macro and quotes, blanks collapsed (`--max-wait duration`).
private func manPageTags(_ source: String) -> [String] {
    let lines = manPageWords(source).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var tags: [String] = []
    for (i, line) in lines.enumerated().dropLast() where line.hasPrefix(".TP") || line.hasPrefix(".TQ") {
        var tag = lines[i + 1]
        if tag.hasPrefix("."), let space = tag.firstIndex(of: " ") { tag = String(tag[space...]) }
        tag = tag.replacingOccurrences(of: "\"", with: "")
        tags.append(tag.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " "))
    }
    return tags
}

/// The relative links of a markdown text, `[text](target)`, without any
/// `#fragment`; addresses with a scheme (`https:`) are not relative.
private func markdownLinks(_ text: String) -> [String] {
    text.matches(of: /\]\(([^)\s]+)\)/).map { String($0.output.1) }
        .filter { !$0.contains(":") }
        .map { String($0.prefix { $0 != "#" }) }
}

/// Where `link`, written in the file at `document` (both relative), leads
/// inside the repository, or nil when it leaves it.
private func pathInRepository(_ link: String, from document: String) -> String? {
    var components = document.split(separator: "/").dropLast().map(String.init)
    for component in link.split(separator: "/") {
        switch component {
        case ".": continue
        case "..":
            if components.isEmpty { return nil }
            components.removeLast()
        default: components.append(String(component))
        }
    }
    return components.joined(separator: "/")
}

/// The command and the output .ci/run checks the README example against:
/// the arguments after `.build/debug/pace` and the `expected=$'...'` value.
private func ciExample(_ script: String) throws -> (arguments: String, output: String) {
    let arguments = try #require(script.firstMatch(of: /\.build\/debug\/pace ([^)\n]+)\)/)?.output.1)
    let expected = try #require(script.firstMatch(of: /expected=\$'([^'\n]*)'/)?.output.1)
    return (String(arguments), expected.replacingOccurrences(of: "\\t", with: "\t"))
}

/// A README section's text: from its `## ` heading to the next one.
private func markdownSection(_ text: String, _ heading: String) -> String? {
    guard let start = text.range(of: "\n## \(heading)\n") else { return nil }
    let rest = text[start.upperBound...]
    return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
}

// MARK: - Tests

@Suite("Documentation")
struct DocumentationTests {
    @Test("every flag name has an item in the man page, with its value", arguments: allFlagNames)
    func manPageDocumentsFlag(_ name: String) throws {
        let tags = manPageTags(try Document.manPage.text())
        let flag = try #require(flagTable.first { $0.names.contains(name) })
        let expected = flag.value.map { "\(name) \($0)" } ?? name
        #expect(tags.contains { mentions($0, expected) },
                "no '.TP' item for '\(expected)' in \(Document.manPage.rawValue)")
    }

    @Test("the man page has the usual sections and names the current version")
    func manPageHeader() throws {
        let source = try Document.manPage.text()
        let sections = ["NAME", "SYNOPSIS", "DESCRIPTION", "POLICIES", "OPTIONS", "FIELDS", "TIME FORMATS", "STATE",
                        "EXIT STATUS", "EXAMPLES", "SEE ALSO"]
        let headings = source.split(separator: "\n").filter { $0.hasPrefix(".SH ") }
            .map { $0.dropFirst(4).replacingOccurrences(of: "\"", with: "") }
        #expect(headings == sections)
        let header = try #require(source.split(separator: "\n").first { $0.hasPrefix(".TH ") })
        #expect(header.contains("\"pace \(paceVersion)\""), "the .TH line names another version: \(header)")
    }

    @Test("the man page names every time format and bad-time action")
    func manPageValues() throws {
        let words = manPageWords(try Document.manPage.text())
        for name in timeFormatNames + badTimeActions {
            let mentioned = mentions(words, name)
            #expect(mentioned, "'\(name)' is missing from \(Document.manPage.rawValue)")
        }
    }

    @Test("groff renders the man page without warnings", .enabled(if: groff != nil, "groff is not installed"))
    func manPageRenders() throws {
        let result = try run(groff!, ["-man", "-Tutf8", "-ww", "-z", Document.manPage.path])
        #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")
    }

    @Test("the bash completion offers every flag name", arguments: allFlagNames)
    func bashCompletesFlag(_ name: String) throws {
        let offered = try bashCompletions(["-"])
        #expect(offered.contains(name), "bash offers \(offered) for 'pace -'")
    }

    @Test("the bash completion offers the time formats and bad-time actions, as --flag value and --flag=value",
          arguments: [("--time-format", timeFormatNames), ("--on-bad-time", badTimeActions)])
    func bashCompletesValues(_ flag: String, _ values: [String]) throws {
        // `--flag value`, then `--flag=` with '=' a word break, then without.
        #expect(try bashCompletions(["--debounce", "1s", flag, ""]) == values)
        #expect(try bashCompletions(["--debounce", "1s", flag, "="]) == values)
        #expect(try bashCompletions(["--debounce", "1s", "\(flag)="]) == values.map { "\(flag)=\($0)" })
    }

    @Test("bash and fish do not offer --time-field with --time-format record, which the binary refuses")
    func recordTakesNoTimeField() throws {
        let withoutRecord = timeFormatNames.filter { $0 != "record" }
        #expect(try bashCompletions(["--debounce", "1s", "--replay", "--time-field", "2", "--time-format", ""]) == withoutRecord)
        #expect(!(try bashCompletions(["--debounce", "1s", "--replay", "--time-format", "record", "--time-"])).contains("--time-field"))
        #expect(!(try bashCompletions(["--debounce", "1s", "--replay", "--time-format=record", "--time-"])).contains("--time-field"))
        #expect(try bashCompletions(["--debounce", "1s", "--replay", "--time-format", "unix", "--time-"]) == ["--time-field"])
        guard fish != nil else { return }
        #expect(try fishCompletions("pace --debounce 1s --replay --time-field 2 --time-format ").sorted() == withoutRecord.sorted())
        #expect(!(try fishCompletions("pace --debounce 1s --replay --time-format record --time-")).contains("--time-field"))
        #expect(try fishCompletions("pace --debounce 1s --replay --time-format unix --time-") == ["--time-field"])
    }

    @Test("the bash completion offers files for FILE and --record")
    func bashCompletesFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pace-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("events log.txt").path
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let partial = dir.appendingPathComponent("events").path
        #expect(try bashCompletions(["--debounce", "1s", partial]) == [file])
        #expect(try bashCompletions(["--debounce", "1s", "--record", partial]) == [file])
        #expect(try bashCompletions(["--debounce", "1s", "--record", "=", partial]) == [file])
        #expect(try bashCompletions(["--debounce", "1s", "--record=\(partial)"]) == ["--record=\(file)"])
    }

    @Test("the zsh completion has a spec for every flag name", arguments: allFlagNames)
    func zshCompletesFlag(_ name: String) throws {
        // A spec is the name followed by `[description]`, or by `=` (the value
        // in the same word or the next) when the flag takes one; inside a
        // brace expansion, by `,` or `}`. Exclusion lists do not count.
        let flag = try #require(flagTable.first { $0.names.contains(name) })
        let followers = flag.value == nil ? "[,}" : "="
        #expect(mentions(try Document.zshCompletion.text(), name, followedBy: followers),
                "no spec for '\(name)' in \(Document.zshCompletion.rawValue)")
    }

    @Test("the zsh completion offers the time formats and bad-time actions")
    func zshCompletesValues() throws {
        let text = try Document.zshCompletion.text()
        for value in timeFormatNames + badTimeActions {
            let listed = text.contains("'\(value):")
            #expect(listed, "no '\(value):description' entry in \(Document.zshCompletion.rawValue)")
        }
    }

    @Test("the fish completion has a line for every flag name, taking a value iff the flag does",
          arguments: allFlagNames)
    func fishCompletesFlag(_ name: String) throws {
        let flag = try #require(flagTable.first { $0.names.contains(name) })
        let option: [Substring] = name.hasPrefix("--") ? ["-l", Substring(name.dropFirst(2))] : ["-s", Substring(name.dropFirst())]
        let lines = fishCompleteLines(try Document.fishCompletion.text())
            .filter { words in words.indices.dropLast().contains { words[$0] == option[0] && words[$0 + 1] == option[1] } }
        try #require(lines.count == 1, "\(lines.count) 'complete -c pace \(option.joined(separator: " "))' lines")
        let takesValue = lines[0].contains("-r") || lines[0].contains("-x")
        #expect(takesValue == (flag.value != nil), "\(name): -r/-x is \(takesValue), the flag's value is \(flag.value ?? "none")")
    }

    @Test("the fish completion offers the time formats and bad-time actions, as --flag value and --flag=value",
          .enabled(if: fish != nil, "fish is not installed"),
          arguments: [("--time-format", timeFormatNames), ("--on-bad-time", badTimeActions)])
    func fishCompletesValues(_ flag: String, _ values: [String]) throws {
        #expect(try fishCompletions("pace --debounce 1s --replay \(flag) ").sorted() == values.sorted())
        #expect(try fishCompletions("pace --debounce 1s --replay \(flag)=").sorted() == values.map { "\(flag)=\($0)" }.sorted())
        // A replay-only flag is offered only once --replay is given.
        #expect(try fishCompletions("pace --debounce 1s --").contains(flag) == false)
        #expect(try fishCompletions("pace --debounce 1s --replay --").contains(flag))
    }

    @Test("the fish completion offers every flag after a policy, and units after a number",
          .enabled(if: fish != nil, "fish is not installed"))
    func fishCompletesFlagsAndUnits() throws {
        let offered = Set(try fishCompletions("pace --"))
        let policies = flagTable.filter { $0.section == .policy }.flatMap(\.names)
        #expect(Set(policies).isSubset(of: offered), "fish offers \(offered.sorted()) for 'pace --'")
        #expect(try fishCompletions("pace --debounce 1") == ["1h", "1m", "1ms", "1ns", "1s", "1us"])
        #expect(try fishCompletions("pace --limit=5/").sorted() == ["--limit=5/h", "--limit=5/m", "--limit=5/ms", "--limit=5/ns",
                                                                     "--limit=5/s", "--limit=5/us"])
        // One policy only.
        #expect(!(try fishCompletions("pace --debounce 1s --")).contains("--leading"))
    }

    @Test("fish parses the fish completion", .enabled(if: fish != nil, "fish is not installed"))
    func fishSyntax() throws {
        let result = try run(fish!, ["--no-config", "-n", Document.fishCompletion.path])
        #expect(result.status == 0 && result.output.isEmpty, "fish -n: \(result.output)")
    }

    @Test("Scripts/install installs the fish completion where fish looks for it")
    func installPlacesFishCompletion() throws {
        #expect(try Document.installScript.text().contains(
            #"place 644 "$root/share/fish/vendor_completions.d/pace.fish" "$prefix/share/fish/vendor_completions.d""#))
    }

    @Test("bash parses the bash completion, Scripts/install and Scripts/package",
          arguments: [Document.bashCompletion.rawValue, Document.installScript.rawValue, Document.packageScript.rawValue])
    func bashSyntax(_ relativePath: String) throws {
        let result = try run(bash, ["-n", repositoryRoot.appendingPathComponent(relativePath).path])
        #expect(result.status == 0 && result.output.isEmpty, "bash -n \(relativePath): \(result.output)")
    }

    @Test("Scripts/install and Scripts/package are executable",
          arguments: [Document.installScript.rawValue, Document.packageScript.rawValue])
    func scriptIsExecutable(_ relativePath: String) {
        #expect(FileManager.default.isExecutableFile(atPath: repositoryRoot.appendingPathComponent(relativePath).path))
    }

    @Test("the README is at most 300 lines")
    func readmeIsShort() throws {
        let lines = try Document.readme.text().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 301, "README.md has \(lines.count - 1) lines")  // the last newline ends no line
    }

    @Test("the README opens with the example .ci/run checks, and its output")
    func readmeOpensWithCIExample() throws {
        let (arguments, output) = try ciExample(try Document.ciScript.text())
        let firstScreen = try Document.readme.text().split(separator: "\n", omittingEmptySubsequences: false)
            .prefix(25).joined(separator: "\n")
        #expect(firstScreen.contains("```sh\nswift run -q pace \(arguments)\n# \(output)\n"),
                "the README's first screen lacks `swift run -q pace \(arguments)` and its output `\(output)`")
        #expect(firstScreen.contains("\nswift test\n"), "the README's first screen lacks `swift test`")
    }

    @Test("the README names every policy and option of the flag table",
          arguments: flagTable.filter { $0.section != .info }.flatMap(\.names))
    func readmeNamesFlag(_ name: String) throws {
        #expect(mentions(try Document.readme.text(), name), "'\(name)' is missing from README.md")
    }

    @Test("the README's and docs/' links inside the repository resolve",
          arguments: ["README.md", "docs/PERFORMANCE.md", "docs/CHOICES.md", "docs/DESIGN.md"])
    func linksResolve(_ relativePath: String) throws {
        let file = repositoryRoot.appendingPathComponent(relativePath)
        let text = try String(contentsOf: file, encoding: .utf8)
        for link in markdownLinks(text) {
            // SPEC.md lives beside the repository, not in it: a link that
            // leaves the repository is not this checkout's to check.
            guard let target = pathInRepository(link, from: relativePath) else { continue }
            #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(target).path),
                    "\(relativePath) links to '\(link)', which is missing")
        }
    }

    @Test("the README's Performance section links docs/PERFORMANCE.md")
    func readmePerformanceLinksTables() throws {
        let section = try #require(markdownSection(try Document.readme.text(), "Performance"),
                                   "README.md has no '## Performance' section")
        #expect(markdownLinks(section).contains("docs/PERFORMANCE.md"))
    }

    @Test("zsh parses the zsh completion", .enabled(if: zsh != nil, "zsh is not installed"))
    func zshSyntax() throws {
        let result = try run(zsh!, ["-n", Document.zshCompletion.path])
        #expect(result.status == 0 && result.output.isEmpty, "zsh -n: \(result.output)")
    }
}
