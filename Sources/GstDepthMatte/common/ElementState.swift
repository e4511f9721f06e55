// SPDX-License-Identifier: LGPL-2.1-or-later
/// What every element's bridge shares: the Swift state behind the opaque
/// pointer the shim keeps (made by each element's dm_<element>_new, freed and
/// reset here for all of them), and the kit views over the shim's pictures.
import DepthMatteKit
import DMContract

/// Per-element state that can forget its history (flush, READY).
protocol ResettableState: AnyObject { func reset() }

extension SparkleEffect: ResettableState {}
extension FrameStacker: ResettableState {}

enum ElementState {
    /// Hand a new state object to the shim (one retain, released by dm_state_free).
    static func retain(_ state: AnyObject) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(state).toOpaque()
    }

    /// The state behind the shim's pointer, if it is a `T`.
    static func get<T: AnyObject>(_ pointer: UnsafeMutableRawPointer?, as: T.Type) -> T? {
        guard let pointer else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as? T
    }
}

@_cdecl("dm_state_free")
public func dm_state_free(_ state: UnsafeMutableRawPointer?) {
    guard let state else { return }
    Unmanaged<AnyObject>.fromOpaque(state).release()
}

@_cdecl("dm_state_reset")
public func dm_state_reset(_ state: UnsafeMutableRawPointer?) {
    ElementState.get(state, as: AnyObject.self).flatMap { $0 as? ResettableState }?.reset()
}

extension RGBImageView {
    init(_ c: DMRGBImage) {
        self.init(base: c.data, width: Int(c.width), height: Int(c.height), stride: Int(c.stride),
                  pixelStride: Int(c.pixel_stride), r: Int(c.r), g: Int(c.g), b: Int(c.b), a: Int(c.a))
    }
}

extension Depth16View {
    init(_ c: DMGrayImage) {
        self.init(base: UnsafeRawPointer(c.data), width: Int(c.width), height: Int(c.height), stride: Int(c.stride))
    }
}

extension Gray8View {
    init(_ c: DMGrayImage) {
        self.init(base: c.data, width: Int(c.width), height: Int(c.height), stride: Int(c.stride))
    }
}
