// SPDX-License-Identifier: LGPL-2.1-or-later
/// docs/quality.md step 2, refine=guided, sub-step 2.2 (the hole fill), at
/// depth resolution (2.1's three-state mask is the `SubjectDecision`'s labels).

extension MatteRefiner {
    /// 2.2: unknown pixels of `label` (`DepthLabel` raw values) take the label
    /// of their nearest valid neighbours: one 4-connected pixel per pass from
    /// every side, subject winning ties; what is still unknown after `passes`
    /// becomes background. The occlusion shadow and hair holes sit beside
    /// near objects.
    static func fillUnknown(label: [UInt8], filled: inout [UInt8], spare: inout [UInt8],
                                   width w: Int, height h: Int, passes: Int, shadows: Bool = false, shadowMargin: Int = 0,
                                   shadowSides: ShadowSides = .both) {
        let n = w * h
        if filled.count < n { filled = [UInt8](repeating: 0, count: n) }
        if spare.count < n { spare = [UInt8](repeating: 0, count: n) }
        label.withUnsafeBufferPointer { l in
        filled.withUnsafeMutableBufferPointer { f in
        spare.withUnsafeMutableBufferPointer { s in
            fillUnknown(labelPlane: l.baseAddress!, filledPlane: f.baseAddress!, sparePlane: s.baseAddress!,
                        width: w, height: h, passes: passes, shadows: shadows, shadowMargin: shadowMargin,
                        shadowSides: shadowSides)
        }}}
    }

    /// `fillUnknown` on raw planes of `width` × `height` bytes; `spare` is scratch.
    /// `shadows`: first, every run of unknown pixels along a row with a
    /// subject reading at one end and a background reading at the other is
    /// an occlusion shadow (`MatteRefiner.Tuning.shadowFill`) and becomes background.
    static func fillUnknown(labelPlane label: UnsafePointer<UInt8>, filledPlane filled: UnsafeMutablePointer<UInt8>,
                            sparePlane spare: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int, passes: Int,
                            shadows: Bool = false, shadowMargin: Int = 0, shadowSides: ShadowSides = .both) {
        let n = w * h
        let unknownLabel = DepthLabel.unknown.rawValue, subject = DepthLabel.subject.rawValue
        let background = DepthLabel.background.rawValue
        var unknown = 0
        for i in 0..<n { filled[i] = label[i]; if label[i] == unknownLabel { unknown += 1 } }
        if shadows { unknown -= shadowsAsReadings(labelPlane: filled, width: w, height: h, shadowMargin: shadowMargin, sides: shadowSides) }
        var pass = 0
        while unknown > 0 && pass < passes {
            pass += 1
            var changed = false
            for i in 0..<n { spare[i] = filled[i] }
            let s = spare, f = filled
            for y in 0..<h {
                for x in 0..<w where s[y * w + x] == unknownLabel {
                    let i = y * w + x
                    var fg = false, bg = false
                    @inline(__always) func look(_ j: Int) { let v = s[j]; if v == subject { fg = true } else if v == background { bg = true } }
                    if x > 0 { look(i - 1) }
                    if x + 1 < w { look(i + 1) }
                    if y > 0 { look(i - w) }
                    if y + 1 < h { look(i + w) }
                    if fg { f[i] = subject; changed = true; unknown -= 1 } else if bg { f[i] = background; changed = true; unknown -= 1 }
                }
            }
            if !changed { break }
        }
        for i in 0..<n where filled[i] == unknownLabel { filled[i] = background }
    }

    /// 2.2, `MatteRefiner.Tuning.shadowReadings`: in every run of unknown pixels
    /// along a row with a subject reading at one end and a background
    /// reading at the other (an occlusion shadow), the pixels beyond
    /// `shadowMargin` from the subject (those the shadow fill made
    /// background) become background readings in `label`: 2.3 trusts them
    /// where the band agrees, interior ones keep their label. Call it on the
    /// three-state mask after `fillUnknown(shadows: true)`.
    /// Only runs on `sides` of the subject count (`ShadowSides`).
    /// Returns how many pixels it changed. (`fillUnknown(shadows: true)`
    /// starts with the same on its copy of the mask.)
    @discardableResult
    static func shadowsAsReadings(labelPlane label: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int,
                                  shadowMargin: Int, sides: ShadowSides = .both) -> Int {
        let unknownLabel = DepthLabel.unknown.rawValue, subject = DepthLabel.subject.rawValue
        let background = DepthLabel.background.rawValue
        var changed = 0
        for y in 0..<h {
            let row = label + y * w
            var x = 0
            while x < w {
                guard row[x] == unknownLabel else { x += 1; continue }
                var e = x
                while e < w && row[e] == unknownLabel { e += 1 }
                if x > 0 && e < w && row[x - 1] != row[e]
                    && sides.contains(row[e] == subject ? .left : .right) {
                    // (the `shadowMargin` pixels next to the subject are left
                    // to the fill: depth and colour may be misregistered)
                    let a = row[x - 1] == subject ? min(e, x + shadowMargin) : x
                    let b = row[e] == subject ? max(a, e - shadowMargin) : e
                    for j in a..<b { row[j] = background }
                    changed += b - a
                }
                x = e
            }
        }
        return changed
    }
}

/// Which side of a near object its occlusion shadow falls on, in the
/// picture (2.2, `MatteRefiner.Tuning.shadowSide`): a row run of holes with the
/// subject at its right end and the background at its left is a shadow on
/// the left.
@_spi(Bench) public struct ShadowSides: OptionSet, Sendable {
    @_spi(Bench) public let rawValue: UInt8
    @_spi(Bench) public init(rawValue: UInt8) { self.rawValue = rawValue }
    static let left = ShadowSides(rawValue: 1)
    static let right = ShadowSides(rawValue: 2)
    static let both: ShadowSides = [.left, .right]
}

extension MatteRefiner {
    /// Per side of the subject, along the rows of the three-state `label`:
    /// how often its outline meets the background across holes (a hole
    /// within `reach` pixels of the subject, the background beyond;
    /// `left`: on the subject's left), and how often without one (`leftDirect`,
    /// `rightDirect`: only readings within `reach`, one of them
    /// background). A flying pixel between the subject and its shadow is a
    /// reading: the holes just beyond it still count.
    static func shadowRuns(labelPlane label: UnsafePointer<UInt8>, width w: Int, height h: Int, reach: Int = 4)
        -> (left: Int, right: Int, leftDirect: Int, rightDirect: Int) {
        let unknownLabel = DepthLabel.unknown.rawValue, subject = DepthLabel.subject.rawValue
        var left = 0, right = 0, leftDirect = 0, rightDirect = 0
        for y in 0..<h {
            let row = label + y * w
            // from subject pixel x outwards by dx: 1 holes then background,
            // 2 background without holes, 0 neither (the picture's edge, or
            // the subject again: a hole inside it)
            @inline(__always) func side(_ x: Int, _ dx: Int) -> Int {
                var j = x + dx, k = 1, hole = false, wall = false
                while j >= 0 && j < w {
                    let v = row[j]
                    if v == subject { return 0 }
                    if v == unknownLabel { if k <= reach { hole = true } } else { wall = true }
                    // decided: a background reading seen by `reach`, or no hole within it
                    if k >= reach && (wall || !hole) { break }
                    j += dx; k += 1
                }
                return wall ? (hole ? 1 : 2) : 0
            }
            for x in 0..<w where row[x] == subject {
                if x > 0 && row[x - 1] != subject {
                    switch side(x, -1) { case 1: left += 1; case 2: leftDirect += 1; default: break }
                }
                if x + 1 < w && row[x + 1] != subject {
                    switch side(x, 1) { case 1: right += 1; case 2: rightDirect += 1; default: break }
                }
            }
        }
        return (left, right, leftDirect, rightDirect)
    }

    /// `shadowSide` .auto: the side on which the subject's outline meets
    /// the background across holes at least `shadowSideRatio` times as often
    /// (as a share of that side's outline, over the last frames, decaying),
    /// once it has `shadowSideRuns` such runs; both sides until then.
    mutating func shadowSides(_ label: UnsafePointer<UInt8>, width w: Int, height h: Int) -> ShadowSides {
        switch tuning.shadowSide {
        case .left: return .left
        case .right: return .right
        case .both: return .both
        case .auto:
            let runs = MatteRefiner.shadowRuns(labelPlane: label, width: w, height: h)
            let v = shadowVotes * 0.8 + SIMD4(Float(runs.left), Float(runs.right), Float(runs.leftDirect), Float(runs.rightDirect))
            shadowVotes = v
            let l = v[0] / max(v[0] + v[2], 1), r = v[1] / max(v[1] + v[3], 1)
            if v[0] >= tuning.shadowSideRuns && l >= tuning.shadowSideRatio * r { return .left }
            if v[1] >= tuning.shadowSideRuns && r >= tuning.shadowSideRatio * l { return .right }
            return .both
        }
    }
}
