// SPDX-License-Identifier: LGPL-2.1-or-later
@_spi(Bench) @testable import DepthMatteKit
import XCTest

final class ThreadBudgetTests: XCTestCase {
    private let cores = WorkerPool.threadCount(0)

    /// A set n-threads is used as it is, untimed.
    func testASetCountIsKept() {
        var b = ThreadBudget()
        for _ in 0..<3 {
            let t = b.threads(requested: 3)
            XCTAssertEqual(t.count, 3)
            XCTAssertFalse(t.timed)
        }
    }

    /// Cheap frames key on one thread, each timed; a frame over half its
    /// interval moves to one thread per core; below 0.4 of it, back to one.
    func testAutomaticFollowsTheFrameCost() {
        var b = ThreadBudget()
        var t = b.threads(requested: 0)
        XCTAssertEqual(t.count, 1)
        XCTAssertTrue(t.timed)
        b.record(cpuSeconds: 0.010, frameDuration: 1.0 / 30)
        XCTAssertFalse(b.many)
        XCTAssertEqual(b.threads(requested: 0).count, 1)
        b.record(cpuSeconds: 0.020, frameDuration: 1.0 / 30)   // 0.6 of the interval
        XCTAssertTrue(b.many)
        // many threads, untimed, until the probe frame
        for _ in 1..<ThreadBudget.probeEvery {
            t = b.threads(requested: 0)
            XCTAssertEqual(t.count, cores)
            XCTAssertFalse(t.timed)
        }
        t = b.threads(requested: 0)
        XCTAssertEqual(t.count, 1)
        XCTAssertTrue(t.timed)
        b.record(cpuSeconds: 0.015, frameDuration: 1.0 / 30)   // 0.45: stays many (hysteresis)
        XCTAssertTrue(b.many)
        for _ in 1..<ThreadBudget.probeEvery { _ = b.threads(requested: 0) }
        XCTAssertTrue(b.threads(requested: 0).timed)
        b.record(cpuSeconds: 0.012, frameDuration: 1.0 / 30)   // 0.36: back to one
        XCTAssertFalse(b.many)
        XCTAssertEqual(b.threads(requested: 0).count, 1)
    }

    /// An unknown frame duration counts as 30 fps.
    func testUnknownIntervalIsThirtyFPS() {
        var b = ThreadBudget()
        b.record(cpuSeconds: 0.015, frameDuration: 0)
        XCTAssertFalse(b.many)
        b.record(cpuSeconds: 0.018, frameDuration: 0)
        XCTAssertTrue(b.many)
    }

    /// The thread clock counts this thread's work.
    func testThreadClockAdvancesWithWork() {
        let t0 = ThreadBudget.threadCPUSeconds()
        var x = 0.0
        while ThreadBudget.threadCPUSeconds() - t0 < 0.002 { x += 1 }
        XCTAssertGreaterThan(x, 0)
    }
}
