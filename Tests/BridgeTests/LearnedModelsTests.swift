// SPDX-License-Identifier: LGPL-2.1-or-later
/// The learned elements' runtime binding (CLiteRT) and its Swift side: the
/// shipped models pass their self-test on the pinned runtime, an instance
/// owns its tensors, a pool lends at most `cap` instances and hands a
/// released one to the next caller waiting, and the data folder's search
/// names every place it looked. Needs the runtime and models that
/// scripts/setup unpacks: DEPTHMATTE_DATA_DIR, else this checkout's
/// .build/depthmatte-data.
import CLiteRT
@testable import GstDepthMatte
import Foundation
import XCTest

final class LearnedModelsTests: XCTestCase {
    override func setUpWithError() throws {
        try Self.useTheDataFolder()
    }

    /// DEPTHMATTE_DATA_DIR, else this checkout's .build/depthmatte-data; fails without the runtime there.
    static func useTheDataFolder() throws {
        var dir = ProcessInfo.processInfo.environment["DEPTHMATTE_DATA_DIR"] ?? ""
        if dir.isEmpty {
            // Tests/BridgeTests/<this file> -> the checkout's .build/depthmatte-data
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
            dir = root.appendingPathComponent(".build/depthmatte-data").path
            setenv("DEPTHMATTE_DATA_DIR", dir, 1)
        }
        guard FileManager.default.fileExists(atPath: dir + "/libLiteRt.so") else {
            XCTFail("\(dir) does not hold the LiteRT runtime (scripts/setup unpacks it there; DEPTHMATTE_DATA_DIR names another folder)")
            throw XCTSkip("no runtime")
        }
    }

    func testEveryShippedModelPassesItsSelfTest() throws {
        for model in [LearnedModel.selfieGeneral, .selfieLandscape, .faceShort, .faceFull, .poseDetection, .poseLandmark] {
            let pool = try LearnedRuntime.pool(model)
            XCTAssertEqual(dm_nn_pool_verdict(pool, nil, 0), 1, model.file)
        }
    }

    func testTheSelfTestRejectsOutputsThatAreNotThePinnedRuntimes() throws {
        let pool = try LearnedRuntime.pool(.selfieLandscape)
        let lease = try LearnedRuntime.acquire(pool)
        defer { lease.release() }
        // the right model checked against another model's figures fails
        XCTAssertNil(LearnedRuntime.selfTest(lease, .selfieLandscape, path: "landscape"))
        let wrong = LearnedModel(file: LearnedModel.selfieLandscape.file, expected: [(11310.9862 * 1.01, 5595.4803)])
        let why = try XCTUnwrap(LearnedRuntime.selfTest(lease, wrong, path: "landscape"))
        XCTAssertTrue(why.contains("self-test of landscape failed"), why)
    }

    func testAnInstanceOwnsItsTensorsAndRunsTheFaceModel() throws {
        let lease = try LearnedRuntime.acquire(try LearnedRuntime.pool(.faceShort))
        defer { lease.release() }
        XCTAssertTrue(lease.inputSize == (128, 128))
        XCTAssertEqual(lease.input().count, 128 * 128 * 3)
        XCTAssertEqual(lease.outputCount, 2)
        XCTAssertEqual(lease.output(0).count, 896 * 16)
        XCTAssertEqual(lease.output(1).count, 896)
        let before = lease.input().baseAddress
        try lease.run()
        XCTAssertEqual(lease.input().baseAddress, before, "an instance's input does not move between runs")
    }

    func testAPoolLendsAtMostCapInstancesAndWakesAWaiter() throws {
        // a pool of its own (another path than the elements' pools): cap 1
        _ = try LearnedRuntime.pool(.selfieLandscape)  // the runtime loaded
        let path = try LearnedRuntime.find(LearnedModel.selfieLandscape.file)
        let link = NSTemporaryDirectory() + "dm-pool-\(getpid()).tflite"
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        defer { try? FileManager.default.removeItem(atPath: link) }
        let pool = try XCTUnwrap(dm_nn_pool_get(link, 1))
        let first = try LearnedRuntime.acquire(pool)
        let gotSecond = expectation(description: "the waiter gets the released instance")
        let lock = NSLock()
        var second: OpaquePointer?
        Thread.detachNewThread {
            let m = dm_nn_pool_acquire(pool, nil, 0)
            lock.lock(); second = m; lock.unlock()
            gotSecond.fulfill()
        }
        // the waiter is still waiting while the only instance is lent
        Thread.sleep(forTimeInterval: 0.2)
        lock.lock(); XCTAssertNil(second); lock.unlock()
        first.release()
        wait(for: [gotSecond], timeout: 60)
        lock.lock(); XCTAssertEqual(second, first.model, "the released instance, not a new one"); lock.unlock()
        dm_nn_pool_release(pool, second)
    }

    func testTheDataFolderSearchNamesWhereItLooked() {
        XCTAssertThrowsError(try LearnedRuntime.find("models/no-such-model.tflite")) { error in
            let why = (error as? LearnedModelError)?.why ?? ""
            XCTAssertTrue(why.hasPrefix("models/no-such-model.tflite is in none of"), why)
            XCTAssertTrue(why.contains("/usr/share/depthmatte"), why)
        }
    }
}
