// SPDX-License-Identifier: LGPL-2.1-or-later
/// depthalign's calibration file as the elements read it: the shim's
/// json-glib reader (dm_calibration_parse, calibrationfile.c) and the
/// bridge's conversion of its numbers into the kit's DepthCalibration.
/// A good file arrives in Swift with every number exact; a bad one is refused
/// with the field (and for a syntax error the line and column) named.
@_spi(Bench) @testable import DepthMatteKit
@testable import GstDepthMatte
import DMContract
import XCTest

final class CalibrationTests: XCTestCase {
    private let good = """
    {"depth": {"width": 848, "height": 480, "fx": 430, "fy": 430, "ppx": 426.7, "ppy": 237.8, "model": "none", "coeffs": [0, 0, 0, 0, 0]},
     "color": {"width": 1280, "height": 720, "fx": 640, "fy": 639.2, "ppx": 635.4, "ppy": 362.1,
               "model": "brown-conrady", "coeffs": [-0.055, 0.065, 0.0008, -0.0006, -0.021]},
     "depth_to_color": {"rotation": [1, 0, 0, 0, 1, 0, 0, 0, 1], "translation": [-0.05, 0, 0.0012]},
     "depth_scale": 0.001}
    """

    /// The shim's reading of `text`, through the bridge: the kit calibration,
    /// or the refusal's field and message.
    private func read(_ text: String) -> Result<DepthCalibration, Refusal> {
        var c = DMCalibration()
        var e = DMCalibrationError()
        guard dm_calibration_parse(text, &c, &e) == 1 else {
            let field = withUnsafeBytes(of: e.field) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            let message = withUnsafeBytes(of: e.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            return .failure(Refusal(field: field, message: message))
        }
        return .success(DepthCalibration(c))
    }

    private struct Refusal: Error { var field: String, message: String }

    private func error(_ text: String) -> Refusal? {
        if case let .failure(e) = read(text) { return e }
        return nil
    }

    private func replacing(_ a: String, _ b: String, in text: String? = nil) -> String {
        let text = text ?? good
        XCTAssertTrue(text.contains(a), a)
        return text.replacingOccurrences(of: a, with: b)
    }

    func testGoodFileArrivesAsTheKitCalibration() throws {
        let expected = DepthCalibration(
            depth: CameraIntrinsics(width: 848, height: 480, fx: 430, fy: 430, ppx: 426.7, ppy: 237.8),
            color: CameraIntrinsics(width: 1280, height: 720, fx: 640, fy: 639.2, ppx: 635.4, ppy: 362.1,
                                    model: .brownConrady, coeffs: [-0.055, 0.065, 0.0008, -0.0006, -0.021]),
            depthToColor: Extrinsics(rotationRowMajor: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [-0.05, 0, 0.0012]),
            depthScale: 0.001)
        XCTAssertEqual(try read(good).get(), expected)
        // the sizes negotiation reads are the shim's own
        var c = DMCalibration()
        var e = DMCalibrationError()
        XCTAssertEqual(dm_calibration_parse(good, &c, &e), 1)
        XCTAssertEqual([c.depth.width, c.depth.height, c.color.width, c.color.height], [848, 480, 1280, 720])
        XCTAssertEqual(c.color.model, DM_DISTORTION_BROWN_CONRADY)
    }

    func testKitCalibrationsReadBackExactly() throws {
        // the kit's writer (DepthCalibration.json, used by the benchmarks)
        // through the shim's reader: every number and model round-trips
        let rig = RegistrationScene.rig()
        XCTAssertEqual(try read(rig.json).get(), rig)
        var inverse = RegistrationScene.rig(depthSize: (212, 120), colorSize: (320, 180), baseline: 0.025,
                                            yawDegrees: -2.5, pitchDegrees: 0.7, depthScale: 0.000125)
        inverse.depth.model = .inverseBrownConrady
        inverse.depth.k1 = 1e-5; inverse.depth.p2 = -3.25e-7
        let back = try read(inverse.json).get()
        XCTAssertEqual(back, inverse)
        XCTAssertEqual(back.depth.model, .inverseBrownConrady)
        XCTAssertEqual(back.depthScale, 0.000125)
        // no model and no coeffs: no distortion
        let plain = try read(replacing(", \"model\": \"none\", \"coeffs\": [0, 0, 0, 0, 0]", "")).get()
        XCTAssertEqual(plain.depth.model, .none)
        XCTAssertEqual(plain.depth.coeffs, [0, 0, 0, 0, 0])
        // unknown keys are ignored; a repeated key: the last one counts
        let extra = try read(replacing("\"depth_scale\": 0.001}", "\"depth_scale\": 0.002, \"serial\": \"x\", \"depth_scale\": 0.001}")).get()
        XCTAssertEqual(extra.depthScale, 0.001)
    }

    func testErrorsNameTheField() {
        let cases: [(String, String, String)] = [
            (replacing("\"fx\": 640, ", ""), "color.fx", "missing field"),
            (replacing("\"width\": 848", "\"width\": \"848\""), "depth.width", "expected a number, found a string"),
            (replacing("\"width\": 848", "\"width\": 0"), "depth.width", "whole number of pixels in 1...65536, found 0"),
            (replacing("\"width\": 848", "\"width\": 84.5"), "depth.width", "whole number"),
            (replacing("\"height\": 720", "\"height\": 65537"), "color.height", "whole number"),
            (replacing("\"fy\": 639.2", "\"fy\": -1"), "color.fy", "focal length must be > 0 pixels, found -1"),
            (replacing("\"fx\": 430", "\"fx\": 0"), "depth.fx", "focal length"),
            (replacing("\"ppx\": 426.7", "\"ppx\": true"), "depth.ppx", "expected a number, found a boolean"),
            (replacing("\"model\": \"none\"", "\"model\": \"fisheye\""), "depth.model",
             "unknown distortion model \"fisheye\" (known: \"none\", \"brown-conrady\", \"inverse-brown-conrady\")"),
            (replacing("\"model\": \"none\"", "\"model\": 3"), "depth.model", "expected a string, found a number"),
            (replacing("\"model\": \"none\"", "\"model\": null"), "depth.model", "expected a string, found null"),
            (replacing(", \"coeffs\": [-0.055, 0.065, 0.0008, -0.0006, -0.021]", ""), "color.coeffs",
             "missing field (model \"brown-conrady\" needs [k1, k2, p1, p2, k3])"),
            (replacing(", -0.021]", "]"), "color.coeffs", "expected 5 numbers, found 4"),
            (replacing("[1, 0, 0, 0, 1, 0, 0, 0, 1]", "[1, 0, 0, 0, 1, 0, 0, 0]"), "depth_to_color.rotation",
             "expected 9 numbers, found 8"),
            (replacing("[1, 0, 0, 0, 1, 0, 0, 0, 1]", "[1, 0, 0, 0, 1, 0, 0, 0.1, 1]"), "depth_to_color.rotation",
             "not a rotation: R·Rᵀ differs from the identity (or det R from 1) by 0.1"),
            (replacing("[1, 0, 0, 0, 1, 0, 0, 0, 1]", "[1, 0, 0, 0, 1, 0, 0, 0, -1]"), "depth_to_color.rotation",
             "not a rotation"),
            (replacing("[1, 0, 0, 0, 1, 0, 0, 0, 1]", "[1, 0, 0, 0, 1, 0, 0, null, 1]"), "depth_to_color.rotation[7]",
             "expected a number, found null"),
            (replacing("\"translation\": [-0.05, 0, 0.0012]", "\"translation\": {}"), "depth_to_color.translation",
             "expected an array of 3 numbers, found an object"),
            (replacing(", \"translation\": [-0.05, 0, 0.0012]", ""), "depth_to_color.translation", "missing field"),
            (replacing("\"depth_to_color\": {", "\"depth_to_color\": [{").replacingOccurrences(of: "0.0012]}", with: "0.0012]}]"),
             "depth_to_color", "expected an object, found an array"),
            (replacing("\"depth_scale\": 0.001", "\"depth_scale\": 0"), "depth_scale",
             "must be > 0 (metres per depth unit), found 0"),
            (replacing(",\n \"depth_scale\": 0.001", ""), "depth_scale", "missing field"),
            (replacing("\"color\": {", "\"colour\": {"), "color", "missing field"),
            (replacing("{\"depth\": {\"width\": 848", "{\"depth\": [{\"width\": 848").replacingOccurrences(of: "0, 0]},", with: "0, 0]}],"),
             "depth", "expected an object, found an array"),
            ("[1, 2]", "", "the calibration must be a JSON object, found an array"),
            ("\"calibration\"", "", "the calibration must be a JSON object, found a string"),
        ]
        for (text, field, message) in cases {
            guard let e = error(text) else { XCTFail("accepted: expected an error on \(field)"); continue }
            XCTAssertEqual(e.field, field, e.message)
            XCTAssertTrue(e.message.contains(message), "\(e.field): \(e.message) should contain \"\(message)\"")
        }
    }

    func testSyntaxErrorsNameTheLineAndColumn() {
        // json-glib's column is the last character of the token it stopped at;
        // a comma missing at the end of line 2 is reported at the number before it
        let missingComma = error(replacing("\"ppy\": 362.1,", "\"ppy\": 362.1"))
        XCTAssertEqual(missingComma?.field, "")
        XCTAssertEqual(missingComma?.message.hasPrefix("invalid JSON at line 2, column 91: unexpected number"), true,
                       missingComma?.message ?? "accepted")
        let cases: [(String, String)] = [
            ("{\"depth\": {\"width\": 212, \"height\": ", "invalid JSON at line 1, column 35: unexpected end of file"),
            ("{\"depth\":\n  {\"fx\": NaN}}", "invalid JSON at line 2, column 12: unexpected identifier `NaN'"),
            ("{\"depth\": 1,}", "invalid JSON at line 1, column 12: unexpected character `,'"),
            ("{\"depth\": 1} trailing", "invalid JSON at line 1, column 21: "),
            ("", "invalid JSON at line 1, column 1: unexpected end of text"),
            (" \n\n  ", "invalid JSON at line 3, column 3: unexpected end of text"),
            (String(repeating: "[", count: 100_000), "invalid JSON at line 1, column 65: nested more than 64 levels"),
            ("{\"a\": \"[[[[\",\n" + String(repeating: "{\"b\": ", count: 70), "invalid JSON at line 2, column 379: nested"),
        ]
        for (text, message) in cases {
            guard let e = error(text) else { XCTFail("accepted: \(text.prefix(40))"); continue }
            XCTAssertEqual(e.field, "")
            XCTAssertTrue(e.message.hasPrefix(message), "\(e.message) should start with \"\(message)\"")
        }
        // 64 levels are read (and refused for what they are, not for depth)
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertEqual(error(deep)?.message, "the calibration must be a JSON object, found an array")
    }

    func testNumbersOutOfRangeAreRefusedAtTheirField() {
        for v in ["1e999", "-1e999"] {
            let e = error(replacing("\"fx\": 430", "\"fx\": \(v)"))
            XCTAssertEqual(e?.field, "depth.fx")
            XCTAssertEqual(e?.message, "number out of range")
        }
        let e = error(replacing("\"depth_scale\": 0.001", "\"depth_scale\": 1e400"))
        XCTAssertEqual(e?.field, "depth_scale")
        XCTAssertEqual(e?.message, "number out of range")
    }

    func testInvalidUTF8IsReadAsReplacementCharacters() throws {
        // bytes that are not UTF-8 in a key the reader ignores do not refuse the file
        var bytes = Array(replacing("\"depth_scale\": 0.001}", "\"depth_scale\": 0.001, \"note\": \"@\"}").utf8)
        bytes[bytes.lastIndex(of: UInt8(ascii: "@"))!] = 0xFF
        bytes.append(0)
        var c = DMCalibration()
        var e = DMCalibrationError()
        let ok = bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { dm_calibration_parse($0.baseAddress, &c, &e) }
        }
        XCTAssertEqual(ok, 1)
        XCTAssertEqual(DepthCalibration(c), try read(good).get())
        // and in a model name they are named in the refusal as U+FFFD
        var model = Array(replacing("\"model\": \"none\"", "\"model\": \"n@ne\"").utf8)
        model[model.firstIndex(of: UInt8(ascii: "@"))!] = 0xFE
        model.append(0)
        let refused = model.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { dm_calibration_parse($0.baseAddress, &c, &e) }
        }
        XCTAssertEqual(refused, 0)
        let message = withUnsafeBytes(of: e.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        XCTAssertTrue(message.hasPrefix("unknown distortion model \"n\u{FFFD}ne\""), message)
    }

    func testLongRefusalsEndOnAWholeCharacter() {
        // a model name longer than the message buffer: cut, still UTF-8
        let name = String(repeating: "é", count: 300)
        var c = DMCalibration()
        var e = DMCalibrationError()
        XCTAssertEqual(dm_calibration_parse(replacing("\"model\": \"none\"", "\"model\": \"\(name)\""), &c, &e), 0)
        let bytes = withUnsafeBytes(of: e.message) { Array($0.prefix(while: { $0 != 0 })) }
        XCTAssertGreaterThan(bytes.count, 200)
        XCTAssertEqual(String(validating: bytes, as: UTF8.self)?.hasPrefix("unknown distortion model \"éé"), true)
    }

    func testFuzzedFilesNeverCrash() {
        var rng = SplitMix64(seed: 42)
        let bytes = Array(good.utf8)
        let alphabet = Array("{}[]\":,0123456789.-+eE truefalsn\\u\"x".utf8)
        var accepted = 0, refused = 0
        for n in 0..<3000 {
            var b: [UInt8]
            switch n % 4 {
            case 0: b = Array(bytes.prefix(rng.below(bytes.count + 1)))                 // truncated
            case 1:                                                                     // mutated
                b = bytes
                for _ in 0..<(1 + rng.below(4)) { b[rng.below(b.count)] = alphabet[rng.below(alphabet.count)] }
            case 2: b = (0..<rng.below(80)).map { _ in alphabet[rng.below(alphabet.count)] } // random tokens
            default: b = (0..<rng.below(60)).map { _ in UInt8(truncatingIfNeeded: rng.next()) } // random bytes
            }
            b.append(0)
            var c = DMCalibration()
            var e = DMCalibrationError()
            let ok = b.withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { dm_calibration_parse($0.baseAddress, &c, &e) }
            }
            if ok == 1 {
                accepted += 1
                XCTAssertEqual(e.message.0, 0)
            } else {
                refused += 1
                XCTAssertNotEqual(e.message.0, 0, "a refusal says why")
                XCTAssertEqual(c.depth.width, 0, "a refused file leaves no numbers behind")
            }
        }
        XCTAssertGreaterThan(accepted, 0)      // some truncations/mutations are harmless
        XCTAssertGreaterThan(refused, 2000)
    }
}
