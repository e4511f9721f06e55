// SPDX-License-Identifier: LGPL-2.1-or-later
/// Where the fit of 2.4 is read. Phase `output` evaluates the colour model
/// only at grid pixels that are not an interior pixel's label (the label
/// unknown, or its mean over `interiorRadius` neither 0 nor 1), from the
/// coefficient means and the low fit at the two depth rows and columns
/// around them (within one of the nearest); phase `edge` reads the
/// confidence's mean under the pixels `output` leaves. Everything else of
/// the fit is never read. Its box means are running sums from row and
/// column 0 (a sum restarted elsewhere is not the same double), so the fit
/// is computed on a top-left rectangle: the coefficient means on rows 0 ..<
/// `fitRows`, columns 0 ..< `fitColumns`, and the solve and the product
/// means on what those reach (`radius` more each way); every value there
/// is the one of the whole plane. A person in the middle of the picture
/// leaves the columns right of them out (a third at the synthetic scene).
extension RefinePass {
    /// Rows and columns of the solve and of the product means.
    var solveRows: Int { min(dh, fitRows + radius) }
    var solveColumns: Int { min(dw, fitColumns + radius) }

    /// Phase `labelMeans`, rows `ys` (after `interior`): one past the last
    /// row and the last column of a depth pixel whose grid pixels take the
    /// colour model, into band `b`'s `reachBuffer` (0: none). Rows are
    /// scanned from the bottom; once one has such a pixel, only the columns
    /// right of the last one found are.
    func modelReach(_ ys: Range<Int>, band b: Int) {
        let unknown = DepthLabel.unknown.rawValue
        var rows = 0, columns = 0
        for y in ys.reversed() {
            let inner = interior + y * dw, lab = label + y * dw
            @inline(__always) func model(_ x: Int) -> Bool { lab[x] == unknown || !(inner[x] == 0 || inner[x] == 1) }
            var x = dw - 1
            while x >= columns && !model(x) { x -= 1 }
            if x >= columns {
                columns = x + 1
                if rows == 0 { rows = y + 1 }
            }
        }
        reachBuffer[4 * b] = Int32(rows); reachBuffer[4 * b + 1] = Int32(columns)
    }

    /// After phase `labelMeans`: `fitRows` and `fitColumns` from the bands'
    /// `modelReach`, one more each for the bilinear neighbours, and at least
    /// `last`, the rows and columns 2.8 read last frame (`edgeReach`: where
    /// last frame's matte is not yet back at its label, 2.8 reads this one's
    /// too; a walking person at 10 frames a second otherwise needs the
    /// completion in two frames of three). Everything with `everywhere`.
    mutating func takeModelReach(everywhere: Bool, last: (rows: Int, columns: Int)) {
        fitRows = dh; fitColumns = dw
        if everywhere { return }
        let (rows, columns) = bandsReach(0)
        fitRows = min(dh, max(rows > 0 ? rows + 1 : 0, edgeContrast > 0 ? last.rows : 0))
        fitColumns = min(dw, max(columns > 0 ? columns + 1 : 0, edgeContrast > 0 ? last.columns : 0))
    }

    /// After phase `output`: the depth rows and columns 2.8 reads the
    /// confidence at (one past the last of each).
    var edgeReach: (rows: Int, columns: Int) { bandsReach(2) }

    /// The largest rows and columns over the bands' `reachBuffer` pairs at `k`.
    private func bandsReach(_ k: Int) -> (rows: Int, columns: Int) {
        var rows = 0, columns = 0
        for b in 0..<bands {
            rows = max(rows, Int(reachBuffer[4 * b + k])); columns = max(columns, Int(reachBuffer[4 * b + k + 1]))
        }
        return (rows, columns)
    }

    /// After phase `output`: whether 2.8 reads a confidence outside the
    /// rectangle (a pixel of last frame's matte not yet back at its label:
    /// with temporal smoothing, where the subject was). Then the rectangle
    /// grows to cover it and the product means, the solve and the
    /// confidence's mean run again (the same values where they ran before;
    /// nothing reads the other coefficients any more).
    mutating func needsCompletion() -> Bool {
        if edgeContrast <= 0 || !(edgeGate > 0) { return false }
        let (rows, columns) = edgeReach
        if rows <= fitRows && columns <= fitColumns { return false }
        fitRows = max(fitRows, rows); fitColumns = max(fitColumns, columns)
        confidenceOnly = true
        return true
    }
}
