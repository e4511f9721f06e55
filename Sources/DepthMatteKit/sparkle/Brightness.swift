// SPDX-License-Identifier: LGPL-2.1-or-later
/// Ambient brightness of a picture, measured on a subsampled grid, and the
/// schedule that decides on which frames to measure.
///
/// Both are allocation-free and pure: the sparkle element measures the input
/// frame before it draws anything, so its own glints never feed back into the
/// reading.

/// What "brightness" means.
@_spi(Bench) public enum BrightnessMeasure: Int32, CaseIterable {
    /// Mean of (R + G + B) / (3 · 255): the classic camera-demo meter.
    case meanRGB = 0
    /// Mean Rec.709 luma: (0.2126 R' + 0.7152 G' + 0.0722 B') / 255, on the
    /// gamma-encoded values as they are in the frame (Y', not linear Y).
    case rec709Luma = 1
}

@_spi(Bench) public enum BrightnessMeter {
    /// Brightness of `image` in 0...1, sampling the pixels at
    /// (x, y) = (step/2 + i·step, step/2 + j·step) for every i, j inside the
    /// picture (a grid centred in its cells; `step` = 1 reads every pixel).
    ///
    /// Sums are kept per channel in integers and combined once at the end, so a
    /// flat frame gives exactly value / 255 up to one Double rounding.
    /// Cost is about (width / step) · (height / step) pixel reads.
    @_spi(Bench) public static func measure(_ image: RGBImageView, step: Int, measure: BrightnessMeasure) -> Double {
        let step = max(1, step)
        let w = image.width, h = image.height
        guard w > 0, h > 0 else { return 0 }
        let x0 = min(step / 2, w - 1), y0 = min(step / 2, h - 1)
        let ps = image.pixelStride, ro = image.r, go = image.g, bo = image.b
        var sr: UInt64 = 0, sg: UInt64 = 0, sb: UInt64 = 0
        var n: UInt64 = 0
        var y = y0
        while y < h {
            let row = image.row(y)
            var rr: UInt32 = 0, rg: UInt32 = 0, rb: UInt32 = 0
            var x = x0
            var off = x0 * ps
            let dOff = step * ps
            var count: UInt64 = 0
            // A row holds at most 65535 samples of 255 (fits UInt32 per row
            // for any picture up to 16M pixels wide).
            while x < w {
                let p = row + off
                rr &+= UInt32(p[ro]); rg &+= UInt32(p[go]); rb &+= UInt32(p[bo])
                x &+= step; off &+= dOff; count &+= 1
            }
            sr &+= UInt64(rr); sg &+= UInt64(rg); sb &+= UInt64(rb)
            n &+= count
            y &+= step
        }
        let denom = Double(n) * 255
        switch measure {
        case .meanRGB:
            return Double(sr + sg + sb) / (3 * denom)
        case .rec709Luma:
            return (0.2126 * Double(sr) + 0.7152 * Double(sg) + 0.0722 * Double(sb)) / denom
        }
    }
}

/// Decides which frames get a brightness reading, by stream time.
///
/// The first frame (after `reset`) is measured. Readings are then due at
/// first + k · interval: a frame is measured when its stream time has reached
/// the next due time, and the due time advances by one interval. So the
/// average rate is exactly 1 / interval whatever the frame rate (30 fps with a
/// 50 ms interval gives 20 readings a second, not 15), and a reading is never
/// closer than one frame to the previous one. Times within `tolerance` (1 µs)
/// before the due time count as due, which absorbs the nanosecond rounding of
/// timestamps such as n · 1/30 s.
///
/// Discontinuities re-anchor the schedule: stream time going backwards (a
/// seek without flush, a looping segment) or jumping more than one interval
/// past the due time measures at once and restarts the schedule there.
/// `interval` 0 measures every frame.
struct MeasureSchedule {
    static let tolerance: Int64 = 1_000
    /// Stream time (ns) at which the next reading is due; nil before the first.
    private(set) var due: Int64? = nil
    /// Stream time (ns) of the last reading.
    private(set) var last: Int64? = nil

    init() {}

    mutating func reset() { due = nil; last = nil }

    /// Whether the frame at stream time `t` (ns) gets a reading; advances the
    /// schedule when it does.
    mutating func isDue(at t: Int64, interval: Int64) -> Bool {
        let interval = max(0, interval)
        guard let d = due, let l = last, t >= l else {
            due = t &+ interval; last = t
            return true
        }
        if t &+ MeasureSchedule.tolerance < d { return false }
        due = (t &- d) < interval ? d &+ interval : t &+ interval
        last = t
        return true
    }
}
