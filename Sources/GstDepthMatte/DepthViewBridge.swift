/// The Swift side of dmdepthview.h: depth pictures for the `depthview` element.
import DepthMatteKit
import GstShim

extension DepthEncoding {
    init(_ c: DMDepthEncoding) {
        self.init(kind: DepthKind(rawValue: c.kind) ?? .depth, eightBit: c.eight_bit != 0,
                  scale: c.scale, near: c.near_m, far: c.far_m, bigEndian: c.big_endian != 0)
    }
}

extension DepthViewSettings {
    init(_ c: DMDepthViewSettings) {
        self.init()
        encoding = DepthEncoding(c.encoding)
        rangeMin = c.range_min
        rangeMax = c.range_max
        colormap = DepthColormap(rawValue: c.colormap) ?? .turbo
        holeARGB = c.hole_argb
    }
}

@_cdecl("dm_depthview_new")
public func dm_depthview_new() -> UnsafeMutableRawPointer? {
    Unmanaged.passRetained(DepthViewRenderer()).toOpaque()
}

@_cdecl("dm_depthview_free")
public func dm_depthview_free(_ state: UnsafeMutableRawPointer?) {
    guard let state else { return }
    Unmanaged<DepthViewRenderer>.fromOpaque(state).release()
}

@_cdecl("dm_depthview_process")
public func dm_depthview_process(_ state: UnsafeMutableRawPointer?, _ settings: UnsafePointer<DMDepthViewSettings>?,
                                 _ depth: UnsafePointer<DMGrayImage>?, _ out: UnsafePointer<DMRGBImage>?) {
    guard let state, let settings, let depth, let out, depth.pointee.data != nil, out.pointee.data != nil else { return }
    let r = Unmanaged<DepthViewRenderer>.fromOpaque(state).takeUnretainedValue()
    let d = depth.pointee
    r.render(depth: UnsafeRawPointer(d.data), width: Int(d.width), height: Int(d.height), stride: Int(d.stride),
             settings: DepthViewSettings(settings.pointee), into: RGBImageView(out.pointee))
}
