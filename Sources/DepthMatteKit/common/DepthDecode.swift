// SPDX-License-Identifier: LGPL-2.1-or-later
/// Raw depth-pad values to metres: one table per encoding, built once per
/// settings change and looked up per pixel.
///
/// Encodings (the `depth-kind` property and the pad's format):
/// - GRAY16_LE or GRAY16_BE `depth`: metres = raw · scale; raw 0 = no reading (hole).
/// - GRAY16_LE `disparity`: disparity = raw · scale in 1/m (grows as things come
///   nearer); metres = 1 / disparity; raw 0 = hole (infinitely far / no match).
/// - GRAY8 `depth` (normalised map): metres = near + (far − near) · v / 255,
///   linear in metres; no holes.
/// - GRAY8 `disparity` (normalised inverse depth, what monocular estimators such
///   as MiDaS produce): 1/metres = 1/far + (1/near − 1/far) · v / 255, so
///   v = 255 is `near` and v = 0 is `far`; no holes.
///
/// A table entry of 0 marks a hole.

/// What the values on the depth pad measure.
enum DepthKind: Int32, CaseIterable, Sendable {
    /// Distance: larger is farther.
    case depth = 0
    /// Inverse distance (1/m): larger is nearer.
    case disparity = 1
}

/// How to read raw depth-pad values as metres: the element's depth rows
/// (depth_encoding_properties.def) and the depth pad's format.
struct DepthEncoding: Equatable, Sendable {
    var kind: DepthKind
    /// true: GRAY8 normalised maps; false: GRAY16.
    var eightBit: Bool
    /// GRAY16 byte order: true for GRAY16_BE (what pngdec gives for 16-bit
    /// PNG depth images, the usual RGB-D dataset format).
    var bigEndian: Bool
    /// GRAY16: metres per unit (`depth`) or 1/m per unit (`disparity`).
    var scale: Double
    /// GRAY8: metres at the nearest end of the map.
    var near: Double
    /// GRAY8: metres at the farthest end of the map.
    var far: Double

    init(kind: DepthKind, eightBit: Bool, scale: Double, near: Double, far: Double, bigEndian: Bool) {
        self.kind = kind; self.eightBit = eightBit; self.scale = scale; self.near = near; self.far = far
        self.bigEndian = bigEndian
    }

    /// An element's depth rows; `eightBit` / `bigEndian`: the depth pad's
    /// format (GRAY8, GRAY16_BE; both false: GRAY16_LE).
    init(_ rows: some DepthEncodingRows, eightBit: Bool, bigEndian: Bool) {
        self.init(kind: DepthKind(property: rows.depth_kind), eightBit: eightBit, scale: rows.depth_scale,
                  near: rows.depth_near, far: rows.depth_far, bigEndian: bigEndian)
    }

    /// The raw 16-bit sample `x` of a row in this encoding's byte order.
    @inline(__always) func sample16(_ row: UnsafeRawPointer, _ x: Int) -> Int {
        let v = row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)
        return Int(bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v))
    }

    /// Metres for one raw value (0 = hole). The reference the tables are built from.
    func metres(_ raw: Int) -> Float {
        if eightBit {
            let v = Double(max(0, min(255, raw))) / 255
            let n = max(1e-6, near), f = max(n, far)
            switch kind {
            case .depth: return Float(n + (f - n) * v)
            case .disparity:
                let inv = 1 / f + (1 / n - 1 / f) * v
                return Float(1 / inv)
            }
        }
        if raw <= 0 || !(scale > 0) { return 0 }
        switch kind {
        case .depth: return Float(Double(raw) * scale)
        case .disparity: return Float(1 / (Double(raw) * scale))
        }
    }
}

/// A per-value table from raw depth-pad values to metres (0 = hole), rebuilt
/// only when the encoding changes (65536 entries for GRAY16_LE, 256 for GRAY8).
struct DepthDecoder {
    private(set) var encoding: DepthEncoding?
    private(set) var table: [Float] = []

    init() {}

    mutating func update(_ e: DepthEncoding) {
        if encoding == e { return }
        encoding = e
        let n = e.eightBit ? 256 : 65536
        if table.count != n { table = [Float](repeating: 0, count: n) }
        for i in 0..<n { table[i] = e.metres(i) }
    }

    /// Raw value at (x, y) of a plane with `bytesPerSample` 1 or 2.
    static func raw(_ base: UnsafeRawPointer, stride: Int, bytesPerSample: Int, x: Int, y: Int) -> Int {
        if bytesPerSample == 1 { return Int(base.load(fromByteOffset: y * stride + x, as: UInt8.self)) }
        return Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: y * stride + 2 * x, as: UInt16.self)))
    }

    /// Decode a whole plane into metres (0 = hole), resizing `out` to it.
    func decode(_ base: UnsafeRawPointer, width: Int, height: Int, stride: Int, into out: inout FloatPlane) {
        out.resize(width: width, height: height)
        guard let e = encoding else {
            // no encoding yet (no `update`): every pixel a hole
            for i in 0..<(width * height) { out.pixels[i] = 0 }
            return
        }
        let bps = e.eightBit ? 1 : 2
        table.withUnsafeBufferPointer { t in
            out.pixels.withUnsafeMutableBufferPointer { o in
                for y in 0..<height {
                    let row = base + y * stride
                    let dst = o.baseAddress! + y * width
                    if bps == 1 {
                        for x in 0..<width { dst[x] = t[Int(row.load(fromByteOffset: x, as: UInt8.self))] }
                    } else {
                        for x in 0..<width { dst[x] = t[e.sample16(row, x)] }
                    }
                }
            }
        }
    }
}

/// Re-expresses any depth-pad encoding as GRAY16 millimetres (0 = hole), so the
/// keyer's lock and threshold, which read GRAY16 depth with a metres-per-unit
/// scale, work unchanged on disparity and GRAY8 maps. Depths beyond 65.535 m
/// clamp to 65535; valid depths nearer than 0.5 mm become 1 (never a hole).
/// The plane is owned and reused between frames.
final class DepthNormalizer {
    /// Metres per unit of the normalised plane.
    static let scale = 0.001
    private(set) var decoder = DepthDecoder()
    private var lut: [UInt16] = []
    private var plane: UnsafeMutablePointer<UInt16>?
    private var capacity = 0

    init() {}
    deinit { plane?.deallocate() }

    /// True when `e` needs no conversion (GRAY16 depth: the keyer reads it directly).
    static func isNative(_ e: DepthEncoding) -> Bool { !e.eightBit && !e.bigEndian && e.kind == .depth }

    /// The depth plane at `base` (bytes per sample from `e.eightBit`) as a
    /// millimetre view valid until the next call.
    func normalize(_ base: UnsafeRawPointer, width: Int, height: Int, stride: Int,
                          encoding e: DepthEncoding) -> Depth16View {
        if decoder.encoding != e {
            decoder.update(e)
            lut = decoder.table.map { m -> UInt16 in
                if !(m > 0) { return 0 }
                let mm = (Double(m) / DepthNormalizer.scale).rounded()
                return mm >= 65535 ? 65535 : UInt16(max(1, mm))
            }
        }
        let n = width * height
        if n > capacity {
            plane?.deallocate()
            plane = .allocate(capacity: n)
            capacity = n
        }
        let out = plane!
        lut.withUnsafeBufferPointer { t in
            for y in 0..<height {
                let row = base + y * stride
                let dst = out + y * width
                if e.eightBit {
                    for x in 0..<width { dst[x] = (t[Int(row.load(fromByteOffset: x, as: UInt8.self))]).littleEndian }
                } else {
                    for x in 0..<width { dst[x] = t[e.sample16(row, x)].littleEndian }
                }
            }
        }
        return Depth16View(base: UnsafeRawPointer(out), width: width, height: height, stride: 2 * width)
    }
}
