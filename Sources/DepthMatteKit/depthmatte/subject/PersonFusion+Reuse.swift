// SPDX-License-Identifier: LGPL-2.1-or-later
/// One fused frame as `DepthMatter` makes it (`apply`, `floorEvidence`,
/// `floor`), and its reuse: a frame whose every input equals the last
/// frame's to the bit (a still picture, a frozen frame, an unchanged mask
/// over unchanged depth), and whose floor kept what the frame before kept
/// (the floor reads the last decision), gives the last frame's decision
/// without the passes. The inputs are kept as copies (about 350 KB at a 320 x 180
/// grid, a few tens of µs to compare and copy against about 3 ms of passes).

extension PersonFusion {
    /// The decision for one frame: `apply`, then `floor` with
    /// `floorEvidence` (see the type's description); the last frame's
    /// decision when every input is the same to the bit.
    mutating func fuse(depth: Depth16View, scale: Double, person: Gray8View, cutoff lockCutoff: Double,
                       seeds: [UInt8]?, floor: SubjectDecision,
                       faceLock: Bool, subjectSeen: Bool, setCutoff: Bool, claimOnRoom: Bool = false) -> SubjectDecision {
        let n = depth.width * depth.height
        let key = FusionReuse.Key(width: depth.width, height: depth.height, floorWidth: floor.width,
                                  floorHeight: floor.height, scale: scale, cutoff: lockCutoff,
                                  floorCutoff: floor.cutoff, seeded: seeds != nil, faceLock: faceLock,
                                  subjectSeen: subjectSeen, setCutoff: setCutoff, claimOnRoom: claimOnRoom,
                                  tuning: tuning,
                                  camera: camera)
        // every copy is brought up to date, whatever the others say
        let sameDepth = reuse.depth.same(depth.base, rowBytes: 2 * depth.width, rows: depth.height,
                                         stride: depth.stride)
        let sameFloor = reuse.floor.same(UnsafeRawPointer(floor.labels), rowBytes: floor.width, rows: floor.height,
                                         stride: floor.width)
        let samePerson = reuse.person.same(UnsafeRawPointer(person.base), rowBytes: person.width,
                                           rows: person.height, stride: person.stride)
        var sameSeeds = true
        if let seeds {
            let count = min(n, seeds.count)
            sameSeeds = seeds.withUnsafeBytes { s in
                s.baseAddress.map { reuse.seeds.same($0, rowBytes: count, rows: 1, stride: count) } ?? false
            }
        }
        let sameKey = key == reuse.key
        reuse.key = key
        if sameKey && sameDepth && sameFloor && samePerson && sameSeeds && planes.heldStable, let decision = reuse.decision {
            return decision
        }
        _ = apply(depth: depth, scale: scale, person: person, cutoff: lockCutoff, seeds: seeds, floor: floor)
        let evidence = floorEvidence(faceLock: faceLock, subjectSeen: subjectSeen, setCutoff: setCutoff,
                                     claimOnRoom: claimOnRoom)
        let decision = self.floor(depth: depth, floor: floor, scale: scale, seeds: seeds, evidence: evidence)
        reuse.decision = decision
        return decision
    }
}

/// The last fused frame's inputs and decision (`PersonFusion.fuse`).
struct FusionReuse {
    struct Key: Equatable {
        var width = -1, height = -1, floorWidth = -1, floorHeight = -1
        var scale = 0.0, cutoff = 0.0, floorCutoff = 0.0
        var seeded = false, faceLock = false, subjectSeen = false, setCutoff = false, claimOnRoom = false
        var tuning = PersonFusion.Tuning()
        var camera = CameraGeometry()
    }
    var key = Key()
    var depth = PlaneCopy(), floor = PlaneCopy(), person = PlaneCopy(), seeds = PlaneCopy()
    /// The decision `fuse` returned last (nil: none, or `apply` ran since).
    var decision: SubjectDecision?
}

/// A copy of a plane's bytes, row after row, that tells whether the next
/// plane is the same to the bit and then becomes it.
struct PlaneCopy {
    private var bytes: [UInt8] = []
    private var rowBytes = -1, rows = -1

    /// Whether the plane (`rows` rows of `rowBytes` bytes, `stride` apart)
    /// equals the copy; the copy is the plane afterwards.
    mutating func same(_ base: UnsafeRawPointer, rowBytes: Int, rows: Int, stride: Int) -> Bool {
        var same = self.rowBytes == rowBytes && self.rows == rows
        if !same {
            self.rowBytes = rowBytes
            self.rows = rows
            if bytes.count < rowBytes * rows { bytes = [UInt8](repeating: 0, count: rowBytes * rows) }
        }
        guard rowBytes > 0 else { return same }
        bytes.withUnsafeMutableBytes { copy in
            let dst = copy.baseAddress!
            for y in 0..<rows {
                let s = base + y * stride, d = dst + y * rowBytes
                if same && PlaneCopy.equal(s, UnsafeRawPointer(d), rowBytes) { continue }
                same = false
                d.copyMemory(from: s, byteCount: rowBytes)
            }
        }
        return same
    }

    /// Whether `count` bytes at `a` and `b` are equal.
    @inline(__always) private static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        var i = 0, diff: UInt64 = 0
        while i + 32 <= count {
            diff |= a.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            diff |= a.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
            diff |= a.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
            diff |= a.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
                ^ b.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
            i += 32
        }
        while i < count {
            diff |= UInt64(a.load(fromByteOffset: i, as: UInt8.self) ^ b.load(fromByteOffset: i, as: UInt8.self))
            i += 1
        }
        return diff == 0
    }
}
