// SPDX-License-Identifier: LGPL-2.1-or-later
// The scenes table: scenes with surfaces nearer than the cutoff that are not
// the subject, and a subject walking in at the edge (mode=nearest, no face
// metas), with the real-sensor artefacts on top. "distractor in" counts
// pixels of the plant, chair, floor or door keyed in (sampled every 2nd
// pixel and row, summed over frames). "guided, slab" is the default with
// subject-only=false: everything nearer than the cutoff.
@_spi(Bench) import DepthMatteKit
import BenchSupport

/// A row of the scenes table: the scene, where its clip starts, the lock
/// mode, and whether the subject sways (`motion`) or the camera pans. The
/// rest is read from the name: ", X m" (the room X times as far), ", 4:3 WxH"
/// / ", 3:4 WxH" (that picture shape and depth size), " square ", ", filtered",
/// ", band N", "faces missed".
struct SceneRow {
    var name: String, kind: SceneKind, start: Double, mode: KeyingMode
    var motion = true, pan = false
    init(_ name: String, _ kind: SceneKind, _ start: Double, _ mode: KeyingMode, motion: Bool = true, pan: Bool = false) {
        (self.name, self.kind, self.start, self.mode, self.motion, self.pan) = (name, kind, start, mode, motion, pan)
    }
}

/// The walk (mode=nearest) once per view, each a pair of rows: "enterLeft"
/// walks in from t = 0.3 s, "leaveRight" (the same scene) walks out from
/// 6.3 s; the view ("", ", 2.5 m", ...) follows the name.
func walkRows(_ views: [String]) -> [SceneRow] {
    views.flatMap { view in
        [SceneRow("enterLeft" + view, .enterLeft, 0.3, .nearest), SceneRow("leaveRight" + view, .enterLeft, 6.3, .nearest)]
    }
}

/// The walk carrying the binder (mode=nearest): `phase` "" walks in from
/// t = 0.3 s, "standing" stands from the start time, "leaving" walks out
/// from 6.3 s; the phase and the view follow the name.
func binderRow(_ phase: String, _ view: String = "") -> SceneRow {
    let start = phase == "standing" ? startTime : phase == "leaving" ? 6.3 : 0.3
    return SceneRow("carryBinder" + (phase.isEmpty ? "" : ", " + phase) + view, .carryBinder, start, .nearest)
}

/// The table's rows, in the order they print. "sway" is the portrait's own
/// motion (it sways ±0.10 m, steps in depth, raises a hand); "still" holds
/// the t = 0 pose (only the sensor noise changes: flicker); "pan" is still
/// with the camera panning.
func sceneRows() -> [SceneRow] {
    var rows = [
        SceneRow("sway", .portrait, startTime, .face), SceneRow("still", .portrait, startTime, .face, motion: false),
        SceneRow("pan", .portrait, startTime, .face, motion: false, pan: true),
        SceneRow("chair", .chair, startTime, .face), SceneRow("slopingFloor", .slopingFloor, startTime, .face),
        SceneRow("doorFrame", .doorFrame, startTime, .face)]
    rows += walkRows([""])
    rows += [
        SceneRow("sway", .portrait, startTime, .nearest),
        SceneRow("thinRod", .thinRod, startTime, .face, motion: env("QB_ROSTILL") == nil),
        // a filtered depth map (an iPhone's AVDepthData; rgbdtestsrc
        // filtered=true, radius 2 at 640x360): the same scenes with every step
        // smoothed into a ramp and the holes filled
        SceneRow("chair, filtered", .chair, startTime, .face), SceneRow("sway, filtered", .portrait, startTime, .face),
        // the same as a phone's 4:3 portrait (colour 640x480; depth 640x480,
        // which the keyer halves, or 320x240), from t = 0
        SceneRow("chair, filtered, 4:3 640x480", .chair, 0, .face),
        SceneRow("chair, filtered, 4:3 320x240", .chair, 0, .face),
        // a phone's portrait upright, with square pixels (colour 480x640,
        // the 16:9 scene's central 42 %: head and shoulders fill it; depth
        // 480x640 or 240x320)
        SceneRow("chair, filtered, 3:4 480x640", .chair, startTime, .face),
        SceneRow("chair, filtered, 3:4 240x320", .chair, startTime, .face),
        SceneRow("sway, filtered, 3:4 240x320", .portrait, startTime, .face),
        SceneRow("chair, 3:4 480x640", .chair, startTime, .face),
        SceneRow("doorFrame, filtered, 3:4 480x640", .doorFrame, startTime, .face),
        SceneRow("doorFrame, filtered, 3:4 240x320", .doorFrame, startTime, .face),
        SceneRow("doorFrame, filtered, 3:4 240x320, faces missed", .doorFrame, startTime, .face),
        SceneRow("chair, filtered, 3:4 240x320", .chair, startTime, .nearest),
        SceneRow("doorFrame, filtered, 3:4 240x320", .doorFrame, startTime, .nearest),
        // a real detector misses faces (every third frame here: the lock
        // holds the subject from depth, `tracked`) or finds none at all
        // (mode=nearest)
        SceneRow("chair, faces missed", .chair, startTime, .face),
        SceneRow("chair, filtered, faces missed", .chair, startTime, .face),
        SceneRow("chair, filtered", .chair, startTime, .nearest)]
    // a Kinect-like walk: the room 2.5 times as far (the subject at about
    // 2.5 m), with quantisation and correlated noise; then the same walk as a
    // Kinect v1 sees it: 4:3 with square pixels (57° x 43°; colour and depth
    // 640x480)
    let square640 = ", 4:3 square 640x480", square320 = ", 4:3 square 320x240"
    rows += walkRows([", 2.5 m", ", 3.5 m"])
    rows += walkRows([square640 + ", 2.5 m", square640 + ", 3.5 m"])
    // the walk carrying a dark, IR-absorbing binder (90 % of its depth
    // pixels without a reading) against the chest
    rows += [binderRow(""), binderRow("standing"), binderRow("leaving"), binderRow("", ", 2.5 m"),
             binderRow("", square640 + ", 2.5 m"), binderRow("leaving", square640 + ", 2.5 m"),
             binderRow("", square640 + ", 3.5 m"), binderRow("", square320 + ", 2.5 m"),
             binderRow("standing", square320 + ", 2.5 m")]
    // a registered map's band of holes along a side, where the depth
    // camera does not see (librealsense's align, depthalign): ", band N"
    // = N columns of the depth map along the left edge (right: -N)
    rows += [
        SceneRow("enterLeft, band 2", .enterLeft, 0.3, .nearest),
        SceneRow("enterLeft, band 40", .enterLeft, 0.3, .nearest),
        SceneRow("leaveRight, band -40", .enterLeft, 6.3, .nearest),
        SceneRow("doorFrame, filtered, 3:4 240x320, band 6", .doorFrame, startTime, .face),
        SceneRow("doorFrame, filtered, 3:4 240x320, band 6", .doorFrame, startTime, .nearest)]
    return rows
}

/// Prints the scenes table (QB_ONLY=name: that row alone), then the walks'
/// and the thin rod's own figures.
func scenesTable() {
    print("\nscenes: depth 640x360, misregistration 1, noise + holes + flying pixels\(env("QB_REAL") != nil ? " + quantisation + correlated noise" : "")")
    print("| scene | start s | mode | refine | SAD | Grad | IoU | IoU min | dtSSD | SAD/orig | IoU/orig | dtSSD/orig | distractor in | hand out | ms/frame |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    var thinLines: [String] = []
    defer { for l in thinLines { print(l) } }
    for row in sceneRows() where env("QB_ONLY").map({ $0 == row.name }) ?? true {
        scoreScene(row, thinLines: &thinLines)
    }
}

/// Renders a row's clip, keys it with the original chain, the default
/// without subject-only and the default, and prints their rows; the walks'
/// and the thin rod's figures go to `thinLines`.
func scoreScene(_ row: SceneRow, thinLines: inout [String]) {
    let (name, kind, start, mode) = (row.name, row.kind, row.start, row.mode)
    let (savedW, savedH) = (VW, VH)
    defer { VW = savedW; VH = savedH }
    let clip = renderScene(row)
    truthGrad = []
    let orig = run(clip, refine: .original, mode: mode)
    // the motion clips' dtSSD is the flicker figure
    for (rname, refine, subjectOnly) in [("original", MatteRefine.original, true), ("guided, slab", .guided, false),
                                         ("guided (default)", .guided, true)] {
        let r = refine == .original ? orig : run(clip, refine: refine, mode: mode, subjectOnly: subjectOnly)
        print("| \(name) | \(f(start, 1)) | \(mode) | \(rname) | \(f(r.sad, 2)) | \(f(r.grad, 2)) | \(f(r.iou, 4)) | \(f(r.iouMin, 4)) | \(f(r.dt, 3)) | "
              + "\(f(r.sad / orig.sad, 2)) | \(f(r.iou / orig.iou, 3)) | \(f(r.dt / orig.dt, 2)) | \(r.distractor) | \(r.handOut) | \(f(r.ms, 1)) |")
        if kind == .enterLeft || kind == .carryBinder {
            thinLines.append("  \(name), \(rname): person fully in view \(r.full) frames, IoU mean \(f(r.fullIoU / Double(max(r.full, 1)), 4)) worst \(f(r.full > 0 ? r.fullMin : 0, 4)); empty \(r.empty) frames, \(r.emptyKeyed) keyed")
        }
        if r.thin > 0 { thinLines.append("  \(name), \(rname): thin rod pixels keyed \(r.thinKept) of \(r.thin) (\(f(100 * Double(r.thinKept) / Double(r.thin), 1)) %)") }
    }
}

/// A row's clip. ", 4:3 WxH": a 640x480 colour frame and that depth size
/// (rgbdtestsrc draws its scene in picture units: at 4:3 it is 3/4 as wide);
/// ", 3:4 WxH": colour 480x640, that depth size, square pixels. Those rows
/// set the colour size (VW, VH) for their runs; the caller restores it.
func renderScene(_ row: SceneRow) -> Clip {
    let name = row.name
    let upright = name.contains(", 3:4 ")
    let portrait43 = name.contains(", 4:3 ") || upright
        ? name.split(whereSeparator: { $0 == " " || $0 == "," }).map { $0.split(separator: "x").compactMap { Int($0) } }.first { $0.count == 2 }
        : nil
    if portrait43 != nil { (VW, VH) = upright ? (480, 640) : (640, 480) }
    // QB_COLOUR=WxH: another colour size for those rows (a phone's colour is 2-4x its depth)
    if portrait43 != nil, let c = env("QB_COLOUR")?.split(separator: "x").compactMap({ Int($0) }), c.count == 2 { (VW, VH) = (c[0], c[1]) }
    let ss = sceneSettings(row)
    let scw = env("QB_SCDW").flatMap { Int($0) } ?? 640  // the scenes' depth width (QB_SCDW; 16:9)
    let (dw, dh) = portrait43.flatMap { $0.count == 2 ? ($0[0], $0[1]) : nil } ?? (scw, scw * 9 / 16)
    var band: Int? = nil
    for part in name.split(separator: ",") {
        let words = part.split(separator: " ")
        if words.count == 2 && words[0] == "band" { band = Int(words[1]) }
    }
    return name.hasSuffix("faces missed") ? render(ss, dw: dw, dh: dh, start: row.start, faceMiss: 3)
                                          : render(ss, dw: dw, dh: dh, start: row.start, band: band.map { -$0 } ?? edgeHoles)
}

/// The scene a row names, with the table's sensor artefacts (noise, holes,
/// flying pixels, misregistration 1).
func sceneSettings(_ row: SceneRow) -> SceneSettings {
    let name = row.name
    var ss = SceneSettings(.defaults)
    ss.squarePixels = name.contains(", 3:4 ") || name.contains(" square ")
    ss.motion = row.motion; ss.pan = row.pan
    ss.noise = true; ss.holes = env("QB_NOHOLES") == nil; ss.flyingPixels = env("QB_NOFLY") == nil; ss.misregistration = env("QB_SCMIS").flatMap { Int($0) } ?? 1; ss.seed = 7
    if env("QB_REAL") != nil { ss.quantization = true; ss.correlatedNoise = true }
    // QB_ABSORB=f: the share of the binder's depth pixels without a reading (0.9 unless set)
    if let f = env("QB_ABSORB").flatMap({ Double($0) }) { ss.absorbedShare = f }
    ss.scene = row.kind
    // ", X m": the room X times as far (the subject at about X m), a far sensor's quantisation and correlated noise
    if name.hasSuffix(" m"), let x = name.split(separator: " ").dropLast().last.flatMap({ Double($0) }) {
        ss.distanceScale = x; ss.quantization = true; ss.correlatedNoise = true
    }
    if row.mode == .nearest { ss.faceMeta = false }
    ss.filtered = name.contains(", filtered")
    return ss
}
