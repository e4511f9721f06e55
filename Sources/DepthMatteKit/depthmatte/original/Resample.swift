// SPDX-License-Identifier: LGPL-2.1-or-later
/// Resampling tables: step 3 (README, depthmatte) (bicubic upscale of the
/// matte) and the aspect-fill placement of a background picture.

/// Cubic filter from the Mitchell–Netravali family. Core Image's
/// `CIBicubicScaleTransform`, which the original sample uses, defaults to
/// B = 0, C = 0.75.
struct CubicKernel {
    var b: Double
    var c: Double
    init(b: Double = 0, c: Double = 0.75) { self.b = b; self.c = c }

    func weight(_ x: Double) -> Double {
        let x = abs(x)
        if x < 1 {
            return ((12 - 9 * b - 6 * c) * x * x * x + (-18 + 12 * b + 6 * c) * x * x + (6 - 2 * b)) / 6
        } else if x < 2 {
            return ((-b - 6 * c) * x * x * x + (6 * b + 30 * c) * x * x + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
        }
        return 0
    }
}

/// For each destination index, the four source indices (clamped to the edge)
/// and their weights. Pixel centres are aligned: destination `i` samples
/// source position `(i + 0.5) * src / dst - 0.5`.
struct CubicTable: Equatable {
    private(set) var source = 0
    private(set) var destination = 0
    private(set) var index: [Int32] = []
    private(set) var weight: [Float] = []

    init() {}
    init(source: Int, destination: Int, kernel: CubicKernel = CubicKernel()) {
        self.source = source
        self.destination = destination
        index = [Int32](repeating: 0, count: 4 * destination)
        weight = [Float](repeating: 0, count: 4 * destination)
        let ratio = Double(source) / Double(destination)
        for i in 0..<destination {
            let s = (Double(i) + 0.5) * ratio - 0.5
            let i0 = Int(s.rounded(.down))
            let t = s - Double(i0)
            var ws = [kernel.weight(t + 1), kernel.weight(t), kernel.weight(1 - t), kernel.weight(2 - t)]
            let sum = ws.reduce(0, +)
            ws = ws.map { $0 / sum }
            for k in 0..<4 {
                index[4 * i + k] = Int32(min(max(i0 - 1 + k, 0), source - 1))
                weight[4 * i + k] = Float(ws[k])
            }
        }
    }

    /// Rebuild only when the sizes change.
    mutating func update(source: Int, destination: Int) {
        if source != self.source || destination != self.destination {
            self = CubicTable(source: source, destination: destination)
        }
    }
}

/// Bicubic upscale (or downscale) of a float plane, separable, with results
/// clamped to [0, 1]. The horizontal pass runs at source height; the vertical
/// pass yields one destination row at a time so callers can consume rows
/// without storing the full-resolution matte.
struct CubicResampler {
    private(set) var columns = CubicTable()
    private(set) var rows = CubicTable()
    private var horizontal = FloatPlane()

    init() {}

    /// Prepare for `src` -> `width` x `height`: runs the horizontal pass.
    mutating func prepare(_ src: FloatPlane, width: Int, height: Int) {
        columns.update(source: src.width, destination: width)
        rows.update(source: src.height, destination: height)
        horizontal.resize(width: width, height: src.height)
        let sw = src.width
        columns.index.withUnsafeBufferPointer { ix in
            columns.weight.withUnsafeBufferPointer { wt in
                src.pixels.withUnsafeBufferPointer { s in
                    horizontal.pixels.withUnsafeMutableBufferPointer { h in
                        for y in 0..<src.height {
                            let row = s.baseAddress! + y * sw
                            let out = h.baseAddress! + y * width
                            for x in 0..<width {
                                let j = 4 * x
                                out[x] = wt[j] * row[Int(ix[j])] + wt[j + 1] * row[Int(ix[j + 1])]
                                    + wt[j + 2] * row[Int(ix[j + 2])] + wt[j + 3] * row[Int(ix[j + 3])]
                            }
                        }
                    }
                }
            }
        }
    }

    /// Destination row `y` (after `prepare`), clamped to [0, 1], into `out`
    /// (at least `width` floats).
    func row(_ y: Int, into out: UnsafeMutablePointer<Float>) {
        let w = columns.destination
        let j = 4 * y
        let r0 = Int(rows.index[j]), r1 = Int(rows.index[j + 1]), r2 = Int(rows.index[j + 2]), r3 = Int(rows.index[j + 3])
        let w0 = rows.weight[j], w1 = rows.weight[j + 1], w2 = rows.weight[j + 2], w3 = rows.weight[j + 3]
        horizontal.pixels.withUnsafeBufferPointer { h in
            let a = h.baseAddress! + r0 * w, b = h.baseAddress! + r1 * w
            let c = h.baseAddress! + r2 * w, d = h.baseAddress! + r3 * w
            for x in 0..<w {
                let v = w0 * a[x] + w1 * b[x] + w2 * c[x] + w3 * d[x]
                out[x] = min(max(v, 0), 1)
            }
        }
    }

    /// Whole upscaled plane (for tests and small pictures).
    mutating func resample(_ src: FloatPlane, width: Int, height: Int) -> FloatPlane {
        prepare(src, width: width, height: height)
        var out = FloatPlane(width: width, height: height)
        out.pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height { row(y, into: p.baseAddress! + y * width) }
        }
        return out
    }
}

/// Aspect-fill placement of a background picture: scaled by
/// `max(W/bw, H/bh)` about the centre and centre-cropped, sampled bilinearly.
/// For each destination index, the two source indices and the weight of the
/// second one.
struct AspectFillTable: Equatable {
    private(set) var source = 0
    private(set) var destination = 0
    private(set) var scale = 0.0
    private(set) var i0: [Int32] = []
    private(set) var i1: [Int32] = []
    private(set) var frac: [Float] = []

    init() {}
    init(source: Int, destination: Int, scale: Double) {
        self.source = source; self.destination = destination; self.scale = scale
        i0 = []; i1 = []; frac = []
        i0.reserveCapacity(destination); i1.reserveCapacity(destination); frac.reserveCapacity(destination)
        for i in 0..<destination {
            var s = (Double(i) + 0.5 - Double(destination) / 2) / scale + Double(source) / 2 - 0.5
            s = min(max(s, 0), Double(source - 1))
            let a = Int(s.rounded(.down))
            i0.append(Int32(a))
            i1.append(Int32(min(a + 1, source - 1)))
            frac.append(Float(s - Double(a)))
        }
    }

    /// The scale that makes a `bw` x `bh` picture cover `w` x `h`.
    static func fillScale(sourceWidth bw: Int, sourceHeight bh: Int, width w: Int, height h: Int) -> Double {
        max(Double(w) / Double(bw), Double(h) / Double(bh))
    }
}
