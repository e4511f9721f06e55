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
