// SPDX-License-Identifier: LGPL-2.1-or-later
/// personmask's full-body fallback on the real pose models (the runtime and models that
/// scripts/setup unpacks; LearnedModelsTests finds them): a figure drawn here, a person in
/// shirt and trousers standing on a floor, is found, segmented and projected back onto the
/// frame where it was drawn, and followed on the next frame from its landmarks; an empty room
/// gives no one, and the detector then rests two frames.
@testable import GstDepthMatte
import DepthMatteKit
import XCTest

final class FullBodyFallbackTests: XCTestCase {
    override func setUpWithError() throws {
        try LearnedModelsTests.useTheDataFolder()
    }

    /// A 640x480 RGB room (wall, floor) and, with `person`, a standing figure 380 px tall
    /// centred at x = 320: a head, a neck, a shirt with arms and hands, trousers and shoes.
    /// The second array marks the figure's pixels.
    static func room(person: Bool) -> (rgb: [UInt8], figure: [Bool]) {
        let w = 640, h = 480
        var rgb = [UInt8](repeating: 0, count: w * h * 3), figure = [Bool](repeating: false, count: w * h)
        func dist(_ px: Float, _ py: Float, _ a: (Float, Float), _ b: (Float, Float)) -> Float {
            let dx = b.0 - a.0, dy = b.1 - a.1
            let t = max(0, min(1, ((px - a.0) * dx + (py - a.1) * dy) / (dx * dx + dy * dy)))
            let ex = px - a.0 - t * dx, ey = py - a.1 - t * dy
            return (ex * ex + ey * ey).squareRoot()
        }
        let skin: [UInt8] = [224, 172, 140], hair: [UInt8] = [40, 30, 20], shirt: [UInt8] = [40, 60, 150]
        let trousers: [UInt8] = [50, 50, 60], shoes: [UInt8] = [20, 20, 20]
        for y in 0..<h {
            for x in 0..<w {
                let px = Float(x) - 320, py = Float(y) - 40
                var c: [UInt8] = y >= 360 ? [120, 110, 100] : [150, 160, 170]
                if person {
                    var part: [UInt8]?
                    for s: Float in [-1, 1] {
                        if dist(px, py, (s * 20, 200), (s * 24, 300)) <= 15 || dist(px, py, (s * 24, 300), (s * 26, 390)) <= 13 {
                            part = trousers
                        }
                        let shoe = (px - s * 32) / 20, sy = (py - 395) / 9
                        if shoe * shoe + sy * sy <= 1 { part = shoes }
                        if dist(px, py, (s * 45, 72), (s * 60, 150)) <= 10 { part = shirt }
                        if dist(px, py, (s * 60, 150), (s * 58, 215)) <= 8 { part = skin }
                    }
                    // the torso: a trapezoid 90 px wide at the shoulders, 76 at the waist
                    let half = 45 - 7 * (py - 66) / 134
                    if py >= 66 && py <= 200 && abs(px) <= half { part = shirt }
                    if abs(px) <= 8 && py >= 55 && py < 66 { part = skin }
                    let hx = px / 22, hy = (py - 30) / 28
                    if hx * hx + hy * hy <= 1 { part = py < 16 ? hair : skin }
                    if let part { c = part; figure[y * w + x] = true }
                }
                for k in 0..<3 { rgb[(y * w + x) * 3 + k] = c[k] }
            }
        }
        return (rgb, figure)
    }

    func segment(_ rgb: [UInt8], into plane: inout [Float], width: Int, height: Int,
                 with fallback: FullBodyFallback = FullBodyFallback()) throws -> Bool {
        try fallback.start()
        return try rgb.withUnsafeBufferPointer { p in
            let frame = PackedRGBFrame(base: p.baseAddress!, width: 640, height: 480, stride: 640 * 3,
                                       red: 0, green: 1, blue: 2, pixelSize: 3)
            return try plane.withUnsafeMutableBufferPointer {
                try fallback.segment(frame, into: $0.baseAddress!, width: width, height: height)
            }
        }
    }

    func testTheDrawnFigureIsFoundAndSegmentedWhereItStands() throws {
        let (rgb, figure) = Self.room(person: true)
        var plane = [Float](repeating: -1, count: 640 * 480)
        XCTAssertTrue(try segment(rgb, into: &plane, width: 640, height: 480))
        var both = 0, either = 0, far = 0
        for i in 0..<plane.count {
            let ours = plane[i] >= 0.5
            if ours && figure[i] { both += 1 }
            if ours || figure[i] { either += 1 }
            // nothing keyed beyond 60 px right or left of the figure
            let x = i % 640
            if ours && abs(x - 320) > 60 + 60 { far += 1 }
        }
        let iou = Double(both) / Double(either)
        XCTAssertGreaterThan(iou, 0.75, "IoU with the drawn figure")
        XCTAssertEqual(far, 0)
        // every value is a probability, 0 outside the region
        XCTAssertEqual(plane.min() ?? -1, 0)
        XCTAssertLessThanOrEqual(plane.max() ?? 2, 1)
    }

    func testOnAPlaneOfTheSelfieModelsSizeTheFigureScalesWithIt() throws {
        let (rgb, figure) = Self.room(person: true)
        var plane = [Float](repeating: -1, count: 256 * 256)
        XCTAssertTrue(try segment(rgb, into: &plane, width: 256, height: 256))
        // the plane stretches over the frame: the figure's pixel count times 256 * 256 / (640 * 480)
        let drawn = Double(figure.filter { $0 }.count) * 65536 / 307200
        let ours = Double(plane.filter { $0 >= 0.5 }.count)
        XCTAssertEqual(ours, drawn, accuracy: 0.25 * drawn)
    }

    func iou(_ plane: [Float], _ figure: [Bool]) -> Double {
        var both = 0, either = 0
        for i in 0..<plane.count where plane[i] >= 0.5 || figure[i] {
            either += 1
            if plane[i] >= 0.5 && figure[i] { both += 1 }
        }
        return Double(both) / Double(max(1, either))
    }

    func testTheNextFrameFollowsThePersonFromTheLandmarks() throws {
        let (rgb, figure) = Self.room(person: true)
        let fallback = FullBodyFallback()
        var first = [Float](repeating: -1, count: 640 * 480), second = first
        XCTAssertTrue(try segment(rgb, into: &first, width: 640, height: 480, with: fallback))
        // the landmarks' region: on the figure (x = 320, hips near y = 240 of 40...435), about its height
        let next = try XCTUnwrap(fallback.tracked)
        XCTAssertEqual(next.centerX, 320, accuracy: 20); XCTAssertEqual(next.centerY, 250, accuracy: 40)
        XCTAssertEqual(next.side, 500, accuracy: 150); XCTAssertEqual(next.rotation, 0, accuracy: 0.2)
        XCTAssertTrue(try segment(rgb, into: &second, width: 640, height: 480, with: fallback))
        XCTAssertGreaterThan(iou(second, figure), 0.75)
        // a frame without the fallback: the next one starts from the detector
        fallback.forget()
        XCTAssertNil(fallback.tracked)
    }

    func testAnEmptyRoomHasNoOneAndTheDetectorRests() throws {
        let (rgb, _) = Self.room(person: false)
        let fallback = FullBodyFallback()
        var plane = [Float](repeating: 0.25, count: 256 * 256)
        XCTAssertFalse(try segment(rgb, into: &plane, width: 256, height: 256, with: fallback))
        XCTAssertEqual(Set(plane), [0.25])
        XCTAssertNil(fallback.tracked)
        XCTAssertEqual(fallback.idle, FullBodyFallback.idleInterval - 1)
        // the person who walks in is found on the idleInterval-th fallback frame
        let (person, figure) = Self.room(person: true)
        var found = [Float](repeating: 0.25, count: 640 * 480)
        for _ in 1..<FullBodyFallback.idleInterval {
            XCTAssertFalse(try segment(person, into: &found, width: 640, height: 480, with: fallback))
        }
        XCTAssertEqual(Set(found), [0.25])
        XCTAssertTrue(try segment(person, into: &found, width: 640, height: 480, with: fallback))
        XCTAssertGreaterThan(iou(found, figure), 0.75)
    }
}
