// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of sparkle.h: turns the shim's plain structs into
/// DepthMatteKit values and runs the sparkle effect. No GStreamer calls here.
import DepthMatteKit
import DMContract

@_cdecl("dm_sparkle_new")
public func dm_sparkle_new() -> UnsafeMutableRawPointer? {
    ElementState.retain(SparkleEffect())
}

@_cdecl("dm_sparkle_process")
public func dm_sparkle_process(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMSparkleSettings>?,
                               _ frame: UnsafePointer<DMRGBImage>?, _ streamTime: Int64, _ frameDuration: Int64,
                               _ result: UnsafeMutablePointer<DMSparkleResult>?) {
    guard let effect = ElementState.get(state, as: SparkleEffect.self), let settings, let frame, let result,
          frame.pointee.data != nil else { return }
    let r = effect.process(RGBImageView(frame.pointee), settings: SparkleSettings(settings.pointee),
                           streamTime: streamTime >= 0 ? streamTime : nil,
                           frameDuration: frameDuration > 0 ? frameDuration : nil)
    result.pointee = DMSparkleResult(measured: r.measured ? 1 : 0, brightness: r.brightness,
                                     sparkles: Int32(r.sparkles), target: Int32(r.target))
}
