// SPDX-License-Identifier: LGPL-2.1-or-later
/// The Swift side of depthview.h: depth pictures for the `depthview` element.
import DepthMatteKit
import DMContract

@_cdecl("dm_depthview_new")
public func dm_depthview_new() -> UnsafeMutableRawPointer? {
    ElementState.retain(DepthViewRenderer())
}

@_cdecl("dm_depthview_process")
public func dm_depthview_process(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMDepthViewSettings>?,
                                 _ depth: UnsafePointer<DMGrayImage>?, _ out: UnsafePointer<DMRGBImage>?) {
    guard let r = ElementState.get(state, as: DepthViewRenderer.self), let settings, let depth, let out,
          depth.pointee.data != nil, out.pointee.data != nil else { return }
    let d = depth.pointee
    r.render(depth: UnsafeRawPointer(d.data), width: Int(d.width), height: Int(d.height), stride: Int(d.stride),
             settings: DepthViewSettings(settings.pointee), into: RGBImageView(out.pointee))
}
