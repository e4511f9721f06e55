// SPDX-License-Identifier: LGPL-2.1-or-later
// Small helpers shared by every benchmark executable: a monotonic clock,
// medians, number formatting, table padding, environment variables and raw
// file output, with the standard library and libc only.
#if canImport(Glibc)
import Glibc
#endif

/// Seconds on the monotonic clock.
public func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// The median of `xs` (the upper one for an even count).
public func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s[s.count / 2]
}

/// Median seconds of `body` over `runs` runs after `warmup` runs.
public func median(runs: Int, warmup: Int = 3, _ body: () -> Void) -> Double {
    for _ in 0..<warmup { body() }
    var t: [Double] = []
    t.reserveCapacity(runs)
    for _ in 0..<runs {
        let a = now(); body(); t.append(now() - a)
    }
    return median(t)
}

/// `x` rounded to `p` decimals, always printed with `p` decimals.
public func f(_ x: Double, _ p: Int = 3) -> String {
    var m = 1.0
    for _ in 0..<p { m *= 10 }
    let v = (x * m).rounded() / m
    var s = "\(v)"
    let parts = s.split(separator: ".")
    if parts.count == 2 && parts[1].count < p { s += String(repeating: "0", count: p - parts[1].count) }
    return s
}

/// `s` padded with spaces to at least `n` characters.
public func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

@_silgen_name("fopen") func c_fopen(_ path: UnsafePointer<CChar>, _ mode: UnsafePointer<CChar>) -> OpaquePointer?
@_silgen_name("fwrite") func c_fwrite(_ p: UnsafeRawPointer, _ size: Int, _ n: Int, _ f: OpaquePointer) -> Int
@_silgen_name("fread") func c_fread(_ p: UnsafeMutableRawPointer, _ size: Int, _ n: Int, _ f: OpaquePointer) -> Int
@_silgen_name("fclose") func c_fclose(_ f: OpaquePointer) -> Int32
@_silgen_name("getenv") func c_getenv(_ name: UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>?

/// The environment variable `name`, if set.
public func env(_ name: String) -> String? { c_getenv(name).map { String(cString: $0) } }

/// Write `bytes` to `path` (best effort: a bench's picture dump).
public func writeFile(_ path: String, _ bytes: [UInt8]) {
    guard let file = c_fopen(path, "wb") else { return }
    _ = bytes.withUnsafeBytes { c_fwrite($0.baseAddress!, 1, $0.count, file) }
    _ = c_fclose(file)
}

/// The bytes of the file at `path` (nil if it cannot be opened).
public func readFile(_ path: String) -> [UInt8]? {
    guard let file = c_fopen(path, "rb") else { return nil }
    defer { _ = c_fclose(file) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = chunk.withUnsafeMutableBytes { c_fread($0.baseAddress!, 1, $0.count, file) }
        if n <= 0 { break }
        out += chunk[0..<n]
    }
    return out
}
