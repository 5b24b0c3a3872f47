// The output path's inline copy: every length from 0 to past the inline
// limit, at every alignment of source and target within a word, copies
// exactly its bytes and touches nothing on either side.

@testable import PaceCore
import Testing

struct CopyBytesTests {
    @Test(arguments: [0, 1, 7, 15])
    func copiesExactlyTheBytesAskedFor(offset: Int) {
        let guardBytes = 32
        let source = UnsafeMutableRawPointer.allocate(byteCount: 300, alignment: 16)
        let target = UnsafeMutableRawPointer.allocate(byteCount: 300 + 2 * guardBytes, alignment: 16)
        defer {
            source.deallocate()
            target.deallocate()
        }
        for i in 0..<300 { source.storeBytes(of: UInt8(truncatingIfNeeded: i &* 7 &+ 1), toByteOffset: i, as: UInt8.self) }
        for count in 0...(300 - offset - 1) {
            target.initializeMemory(as: UInt8.self, repeating: 0xEE, count: 300 + 2 * guardBytes)
            copyBytes(to: target + guardBytes + offset, from: source + offset, count: count)
            for i in 0..<(300 + 2 * guardBytes) {
                let at = i - guardBytes - offset
                let expected: UInt8 = at >= 0 && at < count ? UInt8(truncatingIfNeeded: (at + offset) &* 7 &+ 1) : 0xEE
                if target.load(fromByteOffset: i, as: UInt8.self) != expected {
                    Issue.record("count \(count), offset \(offset): byte \(i) is wrong")
                    return
                }
            }
        }
    }
}
