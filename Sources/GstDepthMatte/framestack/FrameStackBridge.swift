// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of framestack.h: wraps the shim's plane pointers as
/// DepthMatteKit views and drives a FrameStacker. No GStreamer calls here.
import DepthMatteKit
import DMContract

@_cdecl("dm_framestack_new")
public func dm_framestack_new() -> UnsafeMutableRawPointer? {
    ElementState.retain(FrameStacker())
}

@_cdecl("dm_framestack_pending")
public func dm_framestack_pending(_ state: UnsafeMutableRawPointer?) -> Int32 {
    guard let s = ElementState.get(state, as: FrameStacker.self) else { return 0 }
    return Int32(s.pending)
}

@_cdecl("dm_framestack_push")
public func dm_framestack_push(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMFrameStackSettings>?,
                               _ image: UnsafePointer<DMRGBImage>?, _ pts: UInt64, _ duration: UInt64) -> Int32 {
    guard let s = ElementState.get(state, as: FrameStacker.self), let settings, let image,
          image.pointee.data != nil else { return 0 }
    return s.push(RGBImageView(image.pointee), pts: pts, duration: duration,
                  settings: FrameStackSettings(settings.pointee)) ? 1 : 0
}

@_cdecl("dm_framestack_render")
public func dm_framestack_render(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMFrameStackSettings>?,
                                 _ out: UnsafePointer<DMRGBImage>?, _ result: UnsafeMutablePointer<DMFrameStackResult>?) -> Int32 {
    guard let s = ElementState.get(state, as: FrameStacker.self), let settings, let out, let result,
          out.pointee.data != nil else { return 0 }
    let r = s.render(into: RGBImageView(out.pointee), method: FrameStackSettings(settings.pointee).method)
    guard r.ok else { return 0 }
    var c = result.pointee
    c.pts = r.pts
    c.duration = r.duration
    c.n_frames = Int32(r.frames)
    c.min_samples = Int32(r.coverage.minSamples)
    c.full_x = Int32(r.coverage.fullX)
    c.full_y = Int32(r.coverage.fullY)
    c.full_width = Int32(r.coverage.fullWidth)
    c.full_height = Int32(r.coverage.fullHeight)
    for k in 0..<r.frames {
        c.shift_x?[k] = s.shiftX[k]
        c.shift_y?[k] = s.shiftY[k]
        c.registered?[k] = s.registered[k] ? 1 : 0
        c.frame_pts?[k] = s.framePTS[k]
    }
    for k in 0...r.frames { c.sample_counts?[k] = UInt64(s.sampleCounts[k]) }
    result.pointee = c
    return 1
}
