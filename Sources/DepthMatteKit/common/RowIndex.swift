// SPDX-License-Identifier: LGPL-2.1-or-later
/// A pixel index's row and column in a plane `w` wide without an integer
/// division: the quotient from a multiply by 1/w in doubles, corrected by
/// one either way (exact for any index below 2^31). A flood fill that
/// reads the column of every pixel it pops pays a division each (about
/// 15-40 cycles, not pipelined) otherwise.
struct RowIndex {
    let w: Int
    private let inverse: Double

    init(width: Int) { w = max(1, width); inverse = 1 / Double(max(1, width)) }

    /// (row, column) of index `i` (0 <= i < 2^31).
    @inline(__always) func split(_ i: Int) -> (y: Int, x: Int) {
        var y = Int(Double(i) * inverse)
        var x = i &- y &* w
        if x < 0 { y &-= 1; x &+= w }
        if x >= w { y &+= 1; x &-= w }
        return (y, x)
    }

    /// The column of index `i`.
    @inline(__always) func column(_ i: Int) -> Int { split(i).x }
}
