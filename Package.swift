// swift-tools-version:6.0
// pace: a rate-limiting filter for line streams. No package dependencies by
// design: only the Swift toolchain (Foundation-free core, Glibc, Swift Testing).
import PackageDescription

let package = Package(
    name: "pace",
    products: [
        .executable(name: "pace", targets: ["pace"]),
        .library(name: "PaceCore", targets: ["PaceCore"]),
    ],
    targets: [
        // Everything that can be pure: policies, scheduler, clocks, time
        // parsing, the byte line reader and the replay driver.
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
