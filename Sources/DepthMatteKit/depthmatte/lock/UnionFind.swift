// SPDX-License-Identifier: LGPL-2.1-or-later
/// Union-find over a plane of parent indices (`parent[i] == i`: a root),
/// shared by the depth-only finder (`NearestBodyFinder`) and the subject's
/// surfaces (`SubjectSegmentation`). `find` compresses the path it walks;
/// `union` makes the smaller root the parent, so every root is its set's
/// smallest index (labels in scan order follow from it).
struct UnionFind {
    let parent: UnsafeMutablePointer<Int32>

    @inline(__always) func find(_ i: Int32) -> Int32 {
        let p = parent
        var r = i
        while p[Int(r)] != r { r = p[Int(r)] }
        var j = i
        while p[Int(j)] != r { let nx = p[Int(j)]; p[Int(j)] = r; j = nx }
        return r
    }

    @inline(__always) func union(_ a: Int32, _ b: Int32) {
        let ra = find(a), rb = find(b)
        if ra == rb { return }
        if ra < rb { parent[Int(rb)] = ra } else { parent[Int(ra)] = rb }
    }
}
