// Input for tests that run the reader or a whole replay: the bytes in an
// anonymous in-memory file (memfd_create), read from its start. No file is
// created anywhere, so nothing is left behind and nothing is shared between
// tests running at once.

import Glibc

private typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>?, UInt32) -> Int32

/// memfd_create(2), found at run time (Swift's Glibc module leaves it out).
private let memfdCreate: MemfdCreate = {
    guard let symbol = dlsym(nil, "memfd_create") else { preconditionFailure("libc has no memfd_create") }
    return unsafeBitCast(symbol, to: MemfdCreate.self)
}()

/// A descriptor reading `bytes` from the start; the caller closes it.
package func memoryFile(_ bytes: [UInt8]) -> Int32 {
    let fd = memfdCreate("pace-test", 1 /* MFD_CLOEXEC */)
    precondition(fd >= 0, "memfd_create failed: \(errno)")
    var written = 0
    bytes.withUnsafeBytes { raw in
        while written < raw.count {
            let n = write(fd, raw.baseAddress! + written, raw.count - written)
            precondition(n > 0, "write to a memory file failed: \(errno)")
            written += n
        }
    }
    lseek(fd, 0, SEEK_SET)
    return fd
}
