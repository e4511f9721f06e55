// SPDX-License-Identifier: LGPL-2.1-or-later
/// A hand-allocated buffer of `count` values, all `fill` after each growth,
/// that only grows: `reserve` replaces it by a larger one (its values are not
/// kept). Its owner reads and writes through the plain `base` pointer (no
/// `withUnsafe…` per buffer) and frees it in its `deinit`. For trivial
/// element types only (nothing is deinitialised).
struct GrowingBuffer<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private let fill: Element

    init(filling fill: Element) {
        self.fill = fill
        base = .allocate(capacity: 1)
        base.initialize(to: fill)
    }

    mutating func reserve(_ n: Int) {
        guard count < n else { return }
        base.deallocate()
        base = .allocate(capacity: n)
        base.initialize(repeating: fill, count: n)
        count = n
    }

    func free() { base.deallocate() }
}

/// A depth picture the kit writes and then hands out as a `Depth16View`
/// (a halved map, byte-swapped samples): its memory is
/// allocated by hand and lives as long as the buffer, so the view's pointer
/// stays valid until the next `reserve` (a `[UInt16]`'s storage is only
/// valid inside `withUnsafeBytes`). A class: copies of its owner share it.
public final class DepthBuffer {
    public private(set) var base: UnsafeMutablePointer<UInt16>
    private(set) var count = 0

    public init() {
        base = .allocate(capacity: 1)
        base.initialize(to: 0)
    }

    deinit { base.deallocate() }

    /// At least `n` samples (zeros after growth; kept otherwise).
    public func reserve(_ n: Int) {
        guard count < n else { return }
        base.deallocate()
        base = .allocate(capacity: n)
        base.initialize(repeating: 0, count: n)
        count = n
    }

    /// Runs `body` on the samples as a buffer pointer (for code written
    /// against arrays).
    func withSamples<R>(_ body: (UnsafeMutableBufferPointer<UInt16>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: base, count: count))
    }

    /// The first `width` x `height` samples as a tightly packed view.
    public func view(width: Int, height: Int) -> Depth16View {
        Depth16View(base: UnsafeRawPointer(base), width: width, height: height, stride: 2 * width)
    }
}
