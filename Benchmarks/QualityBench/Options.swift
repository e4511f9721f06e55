// SPDX-License-Identifier: LGPL-2.1-or-later
// quality-bench's command line and the environment variables it reads once:
// the clip length, the colour frame size, the picture dump, and the
// refiner's and the scene's experiment knobs (docs/quality.md).
@_spi(Bench) import DepthMatteKit
import BenchSupport

let args = CommandLine.arguments
let seconds = args.count > 1 ? Double(args[1]) ?? 4 : 4
let fps = args.count > 2 ? Double(args[2]) ?? 10 : 10
let nFrames = max(2, Int(seconds * fps))
/// The colour frame size: 1280x720 for rgbdtestsrc scenes; a real clip
/// (QB_CLIP) sets its own.
var VW = 1280, VH = 720
/// quality-bench [seconds] [fps] [dump prefix]: also writes frame 2 of the last clip as PGM/PPM
let dumpPrefix: String? = args.count > 3 ? args[3] : nil
// Experiments (docs/quality.md): environment variables override the
// refiner's parameters; read once.
let tuning: (inout MatteRefiner) -> Void = {
    typealias T = MatteRefiner.Tuning
    let floats: [(String, WritableKeyPath<T, Float>)] = [
        ("QB_CONTRAST", \.contrast), ("QB_EPS", \.eps), ("QB_TBASE", \.temporalBase), ("QB_TGAIN", \.temporalGain),
        ("QB_FITFLOOR", \.fitFloor), ("QB_CNOISE", \.colourNoise), ("QB_HOLD", \.temporalHold),
        ("QB_LEAK", \.temporalLeak), ("QB_GMAX", \.detailGainLimit), ("QB_SPREAD", \.detailMinSpread),
        ("QB_FLATC", \.flatContrast), ("QB_LHOLD", \.labelHold), ("QB_MGAIN", \.motionGain),
        ("QB_MOUT", \.motionOutlier), ("QB_LSHIFT", \.labelShift), ("QB_CSLACK", \.colourSlack), ("QB_ECON", \.edgeContrast), ("QB_EGATE", \.edgeGate)]
    // (QB_BAND sets both bands; QB_BGBAND, after it, the background's alone)
    let ints: [(String, WritableKeyPath<T, Int>)] = [
        ("QB_MARGIN", \.interiorMargin), ("QB_RADIUS", \.radius), ("QB_BAND", \.band), ("QB_BAND", \.backgroundBand),
        ("QB_BGBAND", \.backgroundBand), ("QB_UP", \.maxUpscale), ("QB_DR", \.decisionRadius),
        ("QB_SHMARGIN", \.shadowMargin)]
    // set: the knob turned off
    let offs: [(String, WritableKeyPath<T, Bool>)] = [
        ("QB_NOCLAMP", \.rangeClamp), ("QB_NOMATCH", \.matchWidening), ("QB_NOFIT", \.fitWeighting),
        ("QB_NODETAIL", \.colourDetail), ("QB_NOSHADOW", \.shadowFill), ("QB_NOTHIN", \.thinParts),
        ("QB_NOCAM", \.cameraMotion), ("QB_NOKEEP", \.edgeKeepSide)]
    // only the knobs the environment names are set: a caller's own stay
    var edits: [(inout T) -> Void] = []
    for (k, path) in floats { if let v = env(k).flatMap({ Float($0) }) { edits.append { $0[keyPath: path] = v } } }
    for (k, path) in ints { if let v = env(k).flatMap({ Int($0) }) { edits.append { $0[keyPath: path] = v } } }
    for (k, path) in offs where env(k) != nil { edits.append { $0[keyPath: path] = false } }
    if let v = env("QB_SHREAD").flatMap({ Int($0) }) { edits.append { $0.shadowReadings = v != 0 } }
    let sides: [String: ShadowSide] = ["both": .both, "left": .left, "right": .right]
    if let side = env("QB_SHSIDE").flatMap({ sides[$0] }) { edits.append { $0.shadowSide = side } }
    return { r in for edit in edits { edit(&r.tuning) } }
}()
/// QB_PERFRAME: per-frame IoU and every lost hand pixel; QB_FRAME: the frame
/// the dump prefix writes; QB_MIS: the misregistration of the dumped clip;
/// QB_START: first scene time (s).
let perFrame = env("QB_PERFRAME") != nil
let dumpFrame = env("QB_FRAME").flatMap { Int($0) } ?? 2
let dumpMisregistration = env("QB_MIS") ?? "1"
/// QB_DUMPW: the depth width of the dumped clip (640 unless set)
let dumpDepthWidth = env("QB_DUMPW").flatMap { Int($0) } ?? 640
let startTime = env("QB_START").flatMap { Double($0) } ?? 4
let depthLag = env("QB_DEPTHLAG").flatMap { Double($0) } ?? 0
let edgeHoles = env("QB_EDGEHOLES").flatMap { Int($0) } ?? 0
/// QB_SENSOR=only: the sensor table alone (no main or scenes table).
let sensorOnly = env("QB_SENSOR") == "only"
