// The man page, the shell completions and the README live outside the flag
// table, so nothing else would notice when a flag is added, renamed or dropped
// and they fall behind. These tests hold the man page to the table (and to the
// named time formats and --on-bad-time actions) and check that the scripts
// parse; ShellCompletionTests and ReadmeTests hold the others, with the files
// and the tools found here. groff often is not at hand, so the man page is
// rendered only where it is installed.

import Foundation
import Testing
@testable import PaceCore

// MARK: - The files

/// The repository's root, found from this file's path, so the tests read the
/// files of the checkout they were built from.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // CommandLine
    .deletingLastPathComponent()  // PaceCoreTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()

enum Document: String, CaseIterable {
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

let allFlagNames: [String] = flagTable.flatMap(\.names)
let timeFormatNames: [String] = TimeFormat.names.map(\.0)
let badTimeActions: [String] = BadTimeAction.allCases.map(\.rawValue)

// MARK: - Running tools

struct ToolResult {
    var status: Int32
    /// stdout and stderr together.
    var output: String
}

/// Runs `executable` with `arguments`. stdout and stderr share one pipe, read
/// to its end before waiting, so neither can fill up and stall the child.
func run(_ executable: String, _ arguments: [String]) throws -> ToolResult {
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

let bash = findTool("bash") ?? "/bin/bash"
let zsh = findTool("zsh")
let fish = findTool("fish")
private let groff = findTool("groff")

// MARK: - Reading the documents

extension Character {
    /// A character that can continue a flag's name: `--throttle` is not
    /// mentioned by `--throttle-last`.
    fileprivate var continuesName: Bool { isLetter || isNumber || self == "-" || self == "_" }
}

/// Whether `name` occurs in `text` as a whole word, and (if given) followed
/// by one of `followers`.
func mentions(_ text: String, _ name: String, followedBy followers: String? = nil) -> Bool {
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
}
