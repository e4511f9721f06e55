// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// `n-threads=0`: how many threads key a frame. A frame keys on the streaming
/// thread alone while that costs under half the frame interval of CPU time,
/// and on one thread per core once it costs more (so a slow frame's latency is
/// cut), checked again on one thread every `probeEvery` frames. A second
/// thread costs more than it saves in CPU (8 % more per 1080p frame: its
/// wake-ups across the refiner's phases), which a box keying many streams pays
/// for each of them. A set `n-threads` is used as it is. The output is the
/// same for any thread count.
struct ThreadBudget {
    /// Frames keyed on many threads before one is timed on one thread again.
    static let probeEvery = 60
    /// Many threads above this share of the frame interval, one below `backTo`.
    static let upAt = 0.5, backTo = 0.4
    private(set) var many = false
    private var sinceProbe = 0

    /// This frame's thread count for `requested`, and whether to time it (`record`).
    mutating func threads(requested: Int) -> (count: Int, timed: Bool) {
        if requested > 0 { return (WorkerPool.threadCount(requested), false) }
        if many {
            sinceProbe += 1
            if sinceProbe < Self.probeEvery { return (WorkerPool.threadCount(0), false) }
            sinceProbe = 0
        }
        return (1, true)
    }

    /// A timed frame cost `cpuSeconds` on one thread; frames come every
    /// `frameDuration` seconds (0 when unknown: 30 fps).
    mutating func record(cpuSeconds: Double, frameDuration: Double) {
        let interval = frameDuration > 0 ? frameDuration : 1.0 / 30
        many = cpuSeconds > (many ? Self.backTo : Self.upAt) * interval
    }

    /// The calling thread's CPU time, seconds.
    static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }
}
