// The README held to its shape: short enough to read top to bottom, opening
// with the example CI runs, naming every flag of the table, its links (and
// docs/' links) into the repository alive.

import Foundation
import Testing
@testable import PaceCore

// MARK: - Reading markdown

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

// A suite of its own, not an extension of DocumentationTests: a key path in a
// @Test's arguments needs a stored property, which an extension cannot hold.
@Suite("Documentation: the README")
struct ReadmeTests {
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
}
