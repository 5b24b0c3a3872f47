// swift-tools-version:6.0
// pace: a rate-limiting filter for line streams. No package dependencies by
// design: only the Swift toolchain (Glibc, Swift Testing).
//
// One product, the executable. PaceCore is its core, shared with the tests
// at `package` access: no library API is promised (one can come later, on
// purpose). docs/DESIGN.md draws the rooms of Sources/PaceCore.
import PackageDescription

let package = Package(
    name: "pace",
    products: [
        .executable(name: "pace", targets: ["pace"]),
    ],
    targets: [
        // Policies, scheduler, runtime, fields, time, output, commands; every
        // Linux-specific call in its Platform/ folder.
        .target(name: "PaceCore"),
        // Arguments, file descriptors, signals, exit codes. Thin.
        .executableTarget(name: "pace", dependencies: ["PaceCore"]),
        // What the tests share and the product does not ship: the test clock,
        // the recording sink, the marble DSL and the seeded generator.
        .target(name: "PaceTesting", dependencies: ["PaceCore"]),
        .testTarget(name: "PaceCoreTests", dependencies: ["PaceCore", "PaceTesting"]),
        // Black-box tests of the built binary: bytes in, bytes out.
        .testTarget(name: "EndToEndTests", dependencies: ["pace", "PaceTesting"]),
    ]
)
