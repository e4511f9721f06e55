// SPDX-License-Identifier: LGPL-2.1-or-later
/// Focus modes from the depth-maps tutorial, in metres: a soft mask at depth
/// resolution that replaces the binary threshold in `mode=highpass|bandpass`
/// (blur, gamma, upscale and blend follow as in the other modes).
///
/// - highpass: keeps everything nearer than `focus`:
///   α = 1 for m ≤ focus, falling linearly to 0 at m = focus + 1/slope.
/// - bandpass: keeps a band around `focus`: α = 1 for |m − focus| ≤ halfWidth,
///   falling linearly to 0 at |m − focus| = halfWidth + 1/slope.
/// `slope` is per metre: the tutorial's default 4 gives a 0.25 m ramp, its
/// sharp 10 a 0.10 m ramp; with halfWidth 0.05 the band is full inside ±0.05 m
/// and zero beyond ±0.30 m, the tutorial's numbers read in metres.
/// Holes (no reading) get α = 0. The input may be depth or disparity: the
/// mask is always computed from metres, so the same scene gives the same mask.
/// (The tutorial ramps linearly in disparity d = 1/m; near focus f a disparity
/// slope s_d corresponds to a metre slope of about s_d / f², since
/// |dd/dm| = 1/m².)

enum FocusKind: Int32, Sendable {
    case highpass = 0
    case bandpass = 1
}

struct FocusSettings: Equatable, Sendable {
    var kind: FocusKind = .highpass
    /// Metres.
    var focus: Double = 1.0
    /// Per metre: the ramp is 1/slope metres wide.
    var slope: Double = 4.0
    /// bandpass: metres either side of `focus` kept fully.
    var halfWidth: Double = 0.05

    init(kind: FocusKind = .highpass, focus: Double = 1.0, slope: Double = 4.0, halfWidth: Double = 0.05) {
        self.kind = kind; self.focus = focus; self.slope = slope; self.halfWidth = halfWidth
    }
}

enum FocusMask {
    /// α for a depth of `m` metres (m ≤ 0 or not finite: a hole, α = 0).
    /// Written as (end − x) / (end − start), snapped within 1e-9 of 0 and 1, so
    /// the break points are exact.
    static func alpha(metres m: Double, _ s: FocusSettings) -> Float {
        if !(m > 0) || !m.isFinite { return 0 }
        let ramp = 1 / max(s.slope, 1e-6)
        let x: Double, start: Double
        switch s.kind {
        case .highpass: x = m; start = s.focus
        case .bandpass: x = abs(m - s.focus); start = max(0, s.halfWidth)
        }
        let end = start + ramp
        if x <= start { return 1 }
        if x >= end { return 0 }
        // metres like 2.3 - 2.0 are a few ulps off in binary: snap within 1e-9
        // of the ends so the break points are exact
        let t = (end - x) / (end - start)
        return t < 1e-9 ? 0 : (t > 1 - 1e-9 ? 1 : Float(t))
    }

    /// The mask for a GRAY16 depth plane (metres = value · scale; 0 = hole),
    /// resized to the depth picture.
    static func mask(depth: Depth16View, scale: Double, settings s: FocusSettings, into mask: inout FloatPlane) {
        mask.set(fromDepth: depth) { d in d == 0 ? 0 : alpha(metres: Double(d) * scale, s) }
    }
}
