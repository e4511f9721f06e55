// SPDX-License-Identifier: LGPL-2.1-or-later
/// Who the subject is on one frame, at the depth grid the matte is made
/// from: the one contract between the deciders and the matte.
///
/// The deciders are the depth-only one (`SubjectSegmentation` at the lock's
/// cutoff, or the plain cut `0 < d <= cutoff` where no subject is segmented)
/// and the fused one (`PersonFusion`, over the depth-only decision). Each
/// hands `DepthMatter` a `SubjectDecision`; the refiner (refine=guided) takes
/// its labels as the three-state mask of its step 2.1, the hard threshold
/// (refine=none) keys its subject cells. The depth keeps its readings: no
/// depth value stands for a decision.

/// A cell's state in a decision, one byte per cell.
enum DepthLabel: UInt8 {
    /// Not the subject: a reading farther than the cutoff, or one the
    /// decider left out.
    case background = 0
    /// The subject.
    case subject = 1
    /// No reading and no decision: the refiner decides it from its
    /// neighbours and the colour (not "far").
    case unknown = 2
}

/// One frame's decision: `width` x `height` labels, packed row after row,
/// valid until its buffer decides again.
@_spi(Bench) public struct SubjectDecision {
    let buffer: DecisionBuffer
    let width: Int, height: Int
    /// Metres: the depth the decision was cut at (the message's
    /// `keyed-cutoff`): the lock's cutoff, 1 cm behind the farthest depth
    /// the fusion kept, or 0 when nothing is the subject.
    let cutoff: Double

    var labels: UnsafePointer<UInt8> { UnsafePointer(buffer.base) }

    /// The label of cell (x, y).
    func at(_ x: Int, _ y: Int) -> DepthLabel { DepthLabel(rawValue: labels[y * width + x]) ?? .unknown }

    /// The hard threshold (refine=none): 1 on the subject's cells, else 0.
    func mask(into mask: inout FloatPlane) {
        mask.resize(width: width, height: height)
        let n = width * height, l = labels, subject = DepthLabel.subject.rawValue
        mask.pixels.withUnsafeMutableBufferPointer { m in
            for i in 0..<n { m[i] = l[i] == subject ? 1 : 0 }
        }
    }
}

/// The labels of a decision, allocated by hand so that a `SubjectDecision`'s
/// pointer stays valid between the decider and the matte; it only grows.
/// A class: copies of its owner share it.
@_spi(Bench) public final class DecisionBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init() {
        base = .allocate(capacity: 1)
        base.initialize(to: 0)
    }

    deinit { base.deallocate() }

    /// At least `n` labels (their values are not kept across a growth).
    func reserve(_ n: Int) {
        guard count < n else { return }
        base.deallocate()
        base = .allocate(capacity: n)
        base.initialize(repeating: DepthLabel.unknown.rawValue, count: n)
        count = n
    }

    /// The first `width` x `height` labels as a decision cut at `cutoff`.
    func decision(width: Int, height: Int, cutoff: Double) -> SubjectDecision {
        SubjectDecision(buffer: self, width: width, height: height, cutoff: cutoff)
    }

    /// `decision` with none of it the subject (its subject cells
    /// background), cut at 0 m: a frame that keys nothing.
    func nothing(like decision: SubjectDecision) -> SubjectDecision {
        let w = decision.width, h = decision.height, n = w * h
        let source = decision.labels
        reserve(n)
        let subject = DepthLabel.subject.rawValue, background = DepthLabel.background.rawValue
        for i in 0..<n { base[i] = source[i] == subject ? background : source[i] }
        return self.decision(width: w, height: h, cutoff: 0)
    }

    /// The plain cut: subject where `0 < d <= cutoff` (`DepthThreshold`'s
    /// integer compare), unknown where there is no reading, else background.
    func cut(_ depth: Depth16View, scale: Double, cutoff: Double) -> SubjectDecision {
        let w = depth.width, h = depth.height
        reserve(w * h)
        let limit = DepthThreshold.limit(cutoff: cutoff, scale: scale)
        let unknown = DepthLabel.unknown.rawValue, subject = DepthLabel.subject.rawValue
        let background = DepthLabel.background.rawValue
        for y in 0..<h {
            let row = depth.base + y * depth.stride, o = base + y * w
            for x in 0..<w {
                let d = UInt32(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: 2 * x, as: UInt16.self)))
                o[x] = d == 0 ? unknown : (d <= limit ? subject : background)
            }
        }
        return decision(width: w, height: h, cutoff: cutoff)
    }
}
