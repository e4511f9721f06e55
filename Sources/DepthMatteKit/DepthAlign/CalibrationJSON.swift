// SPDX-License-Identifier: LGPL-2.1-or-later
/// The calibration file of `depthalign` (standard library only, no Foundation):
///
///     {"depth":  {"width": W, "height": H, "fx": .., "fy": .., "ppx": .., "ppy": ..,
///                 "model": "none" | "brown-conrady" | "inverse-brown-conrady",
///                 "coeffs": [k1, k2, p1, p2, k3]},
///      "color":  {same fields},
///      "depth_to_color": {"rotation": [9 numbers, row-major], "translation": [x, y, z]},
///      "depth_scale": 0.001}
///
/// Lengths in metres; unknown keys are ignored; `model` and `coeffs` may be
/// left out (no distortion).

/// Why a calibration was refused: the field (a dotted path such as
/// `color.fx` or `depth_to_color.rotation`; empty for JSON syntax errors) and
/// a sentence for a person.
public struct CalibrationError: Error, Equatable, CustomStringConvertible {
    public var field: String
    public var message: String
    public init(field: String, message: String) { self.field = field; self.message = message }
    public var description: String { field.isEmpty ? message : "\(field): \(message)" }
}

/// A parsed JSON value.
public enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Keys in file order (a repeated key: the last one wins on lookup).
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Parse one JSON document (RFC 8259; nesting limited to 64 levels).
    public static func parse(_ text: String) throws -> JSONValue {
        var p = JSONParser(bytes: Array(text.utf8))
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        if p.i < p.bytes.count { throw p.error("unexpected text after the JSON value") }
        return v
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var i = 0
    static let maxDepth = 64

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ what: String) -> CalibrationError {
        // line and column of byte i, 1-based
        var line = 1, col = 1
        for b in bytes.prefix(min(i, bytes.count)) { if b == 0x0A { line += 1; col = 1 } else { col += 1 } }
        return CalibrationError(field: "", message: "invalid JSON at line \(line), column \(col): \(what)")
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func expect(_ word: String) throws {
        for b in word.utf8 {
            guard i < bytes.count, bytes[i] == b else { throw error("expected '\(word)'") }
            i += 1
        }
    }

    /// The elements of an object or array after its opening bracket, up to
    /// and past `close`: `element` parses one (at its first byte, spaces
    /// skipped), the separating commas are checked here.
    mutating func elements(close: Unicode.Scalar, of what: String, _ element: (inout JSONParser) throws -> Void) throws {
        i += 1
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: close) { i += 1; return }
        while true {
            skipSpace()
            try element(&self)
            skipSpace()
            guard i < bytes.count else { throw error("unexpected end of text in \(what)") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: close) { i += 1; return }
            throw error("expected ',' or '\(close)' in \(what)")
        }
    }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth < JSONParser.maxDepth else { throw error("nested more than \(JSONParser.maxDepth) levels") }
        guard i < bytes.count else { throw error("unexpected end of text") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            var members: [(String, JSONValue)] = []
            try elements(close: "}", of: "an object") { p in
                guard p.i < p.bytes.count, p.bytes[p.i] == UInt8(ascii: "\"") else { throw p.error("expected a quoted key") }
                let key = try p.string()
                p.skipSpace()
                guard p.i < p.bytes.count, p.bytes[p.i] == UInt8(ascii: ":") else { throw p.error("expected ':' after a key") }
                p.i += 1
                p.skipSpace()
                members.append((key, try p.value(depth: depth + 1)))
            }
            return .object(members)
        case UInt8(ascii: "["):
            var items: [JSONValue] = []
            try elements(close: "]", of: "an array") { p in items.append(try p.value(depth: depth + 1)) }
            return .array(items)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            throw error("unexpected character")
        }
    }

    mutating func digits() -> Int {
        let start = i
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
        return i - start
    }

    /// A number in JSON's grammar (no leading '+', no leading zeros, no NaN / Infinity).
    mutating func number() throws -> Double {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count else { throw error("unexpected end of text in a number") }
        if bytes[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { throw error("expected a digit") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            if digits() == 0 { throw error("expected a digit after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            if digits() == 0 { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let v = Double(text), v.isFinite else { i = start; throw error("number out of range") }
        return v
    }

    mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("unexpected end of text in a \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("bad hex digit in a \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    mutating func string() throws -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw error("unterminated string") }
            let b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { throw error("unterminated string") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if scalar >= 0xD800 && scalar < 0xDC00, i + 6 <= bytes.count,
                       bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        let low = try hex4()
                        if low >= 0xDC00 && low < 0xE000 {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else { scalar = 0xFFFD }
                    }
                    out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
                default:
                    throw error("bad escape in a string")
                }
            default:
                if b < 0x20 { throw error("control character in a string") }
                out.append(b)
            }
        }
    }
}

// MARK: - calibration from JSON

extension DepthCalibration {
    /// How far R Rᵀ may be from the identity (and det R from 1): calibration
    /// files print rotations with 6-7 significant digits.
    public static let rotationTolerance = 1e-3

    /// Parse and check a calibration (schema at the top of CalibrationJSON.swift).
    /// Throws `CalibrationError` naming the offending field.
    public init(json text: String) throws {
        let root = try JSONValue.parse(text)
        guard case .object = root else {
            throw CalibrationError(field: "", message: "the calibration must be a JSON object, found \(root.typeName)")
        }
        let depth = try CameraIntrinsics(json: try Self.member(root, "depth", path: ""), path: "depth")
        let color = try CameraIntrinsics(json: try Self.member(root, "color", path: ""), path: "color")
        let ext = try Self.member(root, "depth_to_color", path: "")
        guard case .object = ext else {
            throw CalibrationError(field: "depth_to_color", message: "expected an object, found \(ext.typeName)")
        }
        let rotation = try Self.numbers(try Self.member(ext, "rotation", path: "depth_to_color"),
                                        count: 9, path: "depth_to_color.rotation")
        let translation = try Self.numbers(try Self.member(ext, "translation", path: "depth_to_color"),
                                           count: 3, path: "depth_to_color.translation")
        let extrinsics = Extrinsics(rotationRowMajor: rotation, translation: translation)
        let err = extrinsics.orthonormalityError
        guard err <= Self.rotationTolerance else {
            throw CalibrationError(field: "depth_to_color.rotation",
                                   message: "not a rotation: R·Rᵀ differs from the identity (or det R from 1) by \(err), more than \(Self.rotationTolerance)")
        }
        let scale = try Self.number(try Self.member(root, "depth_scale", path: ""), path: "depth_scale")
        guard scale > 0 else {
            throw CalibrationError(field: "depth_scale", message: "must be > 0 (metres per depth unit), found \(scale)")
        }
        self.init(depth: depth, color: color, depthToColor: extrinsics, depthScale: scale)
    }

    /// The calibration as JSON (the schema `init(json:)` reads), numbers printed
    /// so that they read back exactly.
    public var json: String {
        func cam(_ c: CameraIntrinsics) -> String {
            "{\"width\": \(c.width), \"height\": \(c.height), \"fx\": \(c.fx), \"fy\": \(c.fy), "
                + "\"ppx\": \(c.ppx), \"ppy\": \(c.ppy), \"model\": \"\(c.model.rawValue)\", "
                + "\"coeffs\": [\(c.coeffs.map { "\($0)" }.joined(separator: ", "))]}"
        }
        let r = depthToColor.rotationRowMajor.map { "\($0)" }.joined(separator: ", ")
        let t = depthToColor.translation
        return "{\n  \"depth\": \(cam(depth)),\n  \"color\": \(cam(color)),\n"
            + "  \"depth_to_color\": {\"rotation\": [\(r)], \"translation\": [\(t.x), \(t.y), \(t.z)]},\n"
            + "  \"depth_scale\": \(depthScale)\n}\n"
    }

    static func member(_ object: JSONValue, _ key: String, path: String) throws -> JSONValue {
        let field = path.isEmpty ? key : path + "." + key
        guard let v = object[key] else { throw CalibrationError(field: field, message: "missing field") }
        return v
    }

    static func number(_ v: JSONValue, path: String) throws -> Double {
        guard case let .number(x) = v else {
            throw CalibrationError(field: path, message: "expected a number, found \(v.typeName)")
        }
        return x
    }

    static func numbers(_ v: JSONValue, count: Int, path: String) throws -> [Double] {
        guard case let .array(items) = v else {
            throw CalibrationError(field: path, message: "expected an array of \(count) numbers, found \(v.typeName)")
        }
        guard items.count == count else {
            throw CalibrationError(field: path, message: "expected \(count) numbers, found \(items.count)")
        }
        return try items.enumerated().map { try number($0.1, path: "\(path)[\($0.0)]") }
    }
}

extension CameraIntrinsics {
    init(json v: JSONValue, path: String) throws {
        guard case .object = v else {
            throw CalibrationError(field: path, message: "expected an object, found \(v.typeName)")
        }
        func num(_ key: String) throws -> Double {
            try DepthCalibration.number(try DepthCalibration.member(v, key, path: path), path: path + "." + key)
        }
        func size(_ key: String) throws -> Int {
            let x = try num(key)
            guard x == x.rounded(), x >= 1, x <= 65536 else {
                throw CalibrationError(field: path + "." + key, message: "must be a whole number of pixels in 1...65536, found \(x)")
            }
            return Int(x)
        }
        let width = try size("width"), height = try size("height")
        let fx = try num("fx"), fy = try num("fy")
        for (k, f) in [("fx", fx), ("fy", fy)] where !(f > 0) {
            throw CalibrationError(field: path + "." + k, message: "focal length must be > 0 pixels, found \(f)")
        }
        let ppx = try num("ppx"), ppy = try num("ppy")
        var model = DistortionModel.none
        if let m = v["model"] {
            guard case let .string(name) = m else {
                throw CalibrationError(field: path + ".model", message: "expected a string, found \(m.typeName)")
            }
            guard let known = DistortionModel(rawValue: name) else {
                let names = DistortionModel.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw CalibrationError(field: path + ".model", message: "unknown distortion model \"\(name)\" (known: \(names))")
            }
            model = known
        }
        var coeffs = [Double](repeating: 0, count: 5)
        if let c = v["coeffs"] {
            coeffs = try DepthCalibration.numbers(c, count: 5, path: path + ".coeffs")
        } else if model != .none {
            throw CalibrationError(field: path + ".coeffs", message: "missing field (model \"\(model.rawValue)\" needs [k1, k2, p1, p2, k3])")
        }
        self.init(width: width, height: height, fx: fx, fy: fy, ppx: ppx, ppy: ppy, model: model, coeffs: coeffs)
    }
}
