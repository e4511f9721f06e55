/// Placeholder for the rgbdtestsrc scene renderers (filled in with the scene).
import GstShim

@_cdecl("dm_scene_render_video")
public func dm_scene_render_video(_ s: UnsafePointer<DMSceneSettings>?, _ t: Double,
                                  _ out: UnsafePointer<DMRGBImage>?, _ face: UnsafeMutablePointer<DMBox>?) -> Int32 { 0 }
@_cdecl("dm_scene_render_depth")
public func dm_scene_render_depth(_ s: UnsafePointer<DMSceneSettings>?, _ t: Double, _ out: UnsafePointer<DMGrayImage>?) {}
@_cdecl("dm_scene_render_truth")
public func dm_scene_render_truth(_ s: UnsafePointer<DMSceneSettings>?, _ t: Double, _ out: UnsafePointer<DMGrayImage>?) {}
