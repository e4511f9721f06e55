/// Raw depth-pad values to metres: one table per encoding, built once per
/// settings change and looked up per pixel.
///
/// Encodings (the `depth-kind` property and the pad's format):
/// - GRAY16_LE `depth`: metres = raw · scale; raw 0 = no reading (hole).
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
public enum DepthKind: Int32, Sendable {
    /// Distance: larger is farther.
    case depth = 0
    /// Inverse distance (1/m): larger is nearer.
    case disparity = 1
}

/// How to read raw depth-pad values as metres.
public struct DepthEncoding: Equatable, Sendable {
    public var kind: DepthKind = .depth
    /// true: GRAY8 normalised maps; false: GRAY16_LE.
    public var eightBit: Bool = false
    /// GRAY16_LE: metres per unit (`depth`) or 1/m per unit (`disparity`).
    public var scale: Double = 0.001
    /// GRAY8: metres at the nearest end of the map.
    public var near: Double = 0.5
    /// GRAY8: metres at the farthest end of the map.
    public var far: Double = 5.0

    public init(kind: DepthKind = .depth, eightBit: Bool = false, scale: Double = 0.001,
                near: Double = 0.5, far: Double = 5.0) {
        self.kind = kind; self.eightBit = eightBit; self.scale = scale; self.near = near; self.far = far
    }

    /// Metres for one raw value (0 = hole). The reference the tables are built from.
    public func metres(_ raw: Int) -> Float {
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
public struct DepthDecoder {
    public private(set) var encoding: DepthEncoding?
    public private(set) var table: [Float] = []

    public init() {}

    public mutating func update(_ e: DepthEncoding) {
        if encoding == e { return }
        encoding = e
        let n = e.eightBit ? 256 : 65536
        if table.count != n { table = [Float](repeating: 0, count: n) }
        for i in 0..<n { table[i] = e.metres(i) }
    }

    /// Raw value at (x, y) of a plane with `bytesPerSample` 1 or 2.
    @inlinable public static func raw(_ base: UnsafeRawPointer, stride: Int, bytesPerSample: Int, x: Int, y: Int) -> Int {
        if bytesPerSample == 1 { return Int(base.load(fromByteOffset: y * stride + x, as: UInt8.self)) }
        return Int(UInt16(littleEndian: base.loadUnaligned(fromByteOffset: y * stride + 2 * x, as: UInt16.self)))
    }

    /// Decode a whole plane into metres (0 = hole), resizing `out` to it.
    public func decode(_ base: UnsafeRawPointer, width: Int, height: Int, stride: Int, into out: inout FloatPlane) {
        out.resize(width: width, height: height)
        let bps = (encoding?.eightBit ?? false) ? 1 : 2
        table.withUnsafeBufferPointer { t in
            out.pixels.withUnsafeMutableBufferPointer { o in
                for y in 0..<height {
                    let row = base + y * stride
                    let dst = o.baseAddress! + y * width
                    if bps == 1 {
                        for x in 0..<width { dst[x] = t[Int(row.load(fromByteOffset: x, as: UInt8.self))] }
                    } else {
                        for x in 0..<width {
                            dst[x] = t[Int(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)))]
                        }
                    }
                }
            }
        }
    }
}
