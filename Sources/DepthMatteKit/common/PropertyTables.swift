// SPDX-License-Identifier: LGPL-2.1-or-later
/// The elements' settings structs (DMContract: one field per row of
/// DMContract/include/<element>_properties.def, the shim's copy of the properties) as
/// the kit reads them. A property's default is written in its .def row and
/// nowhere else; `defaults` is a struct as the element starts
/// (dm_<element>_settings_init, the same call the element's instance init
/// makes). Each element reads its struct in one place: `MattePlan.init`
/// (depthmatte), `DepthViewSettings.init` (depthview), `SceneSettings.init`
/// (rgbdtestsrc), `SparkleSettings.init`, `FrameStackSettings.init`;
/// depthalign's `max-jump` is an argument of `DepthRegistration.register`.
import DMContract

/// An element's settings struct, with the contract's
/// `dm_<element>_settings_init` that fills it.
public protocol ElementSettings {
    init()
    static var initialise: SettingsInit<Self> { get }
}

/// A contract's `dm_<element>_settings_init`.
public typealias SettingsInit<Settings> = (UnsafeMutablePointer<Settings>) -> Void

extension ElementSettings {
    /// Every property at its default (depthmatte's `frame_duration` 0, the
    /// depth readers' input GRAY16_LE).
    @_spi(Bench) public static var defaults: Self {
        var s = Self()
        initialise(&s)
        return s
    }
}

extension DMDepthMatteSettings: ElementSettings { public static var initialise: SettingsInit<Self> { dm_depthmatte_settings_init } }
extension DMDepthViewSettings: ElementSettings { public static var initialise: SettingsInit<Self> { dm_depthview_settings_init } }
extension DMRGBDTestSrcSettings: ElementSettings { public static var initialise: SettingsInit<Self> { dm_rgbdtestsrc_settings_init } }
extension DMSparkleSettings: ElementSettings { public static var initialise: SettingsInit<Self> { dm_sparkle_settings_init } }
extension DMFrameStackSettings: ElementSettings { public static var initialise: SettingsInit<Self> { dm_framestack_settings_init } }
extension DMDepthAlignSettings: ElementSettings { public static var initialise: SettingsInit<Self> { dm_depthalign_settings_init } }

/// A kit enum whose raw values are a C enum's (an ENUM row's values).
protocol PropertyEnum: CaseIterable, RawRepresentable where RawValue == Int32 {}

extension PropertyEnum {
    /// The case of an enum property's value. GObject's enum ParamSpec lets
    /// only the registered values through, and each has a case (a bridge test
    /// checks every C value); any other value reads as the first case rather
    /// than stopping the plugin.
    init(property raw: Int32) {
        self = Self(rawValue: raw) ?? Self.allCases[Self.allCases.startIndex]
    }
}

// The kit's cases of every ENUM row.
extension KeyingMode: PropertyEnum {}
extension MatteRefine: PropertyEnum {}
extension ElementOutput: PropertyEnum {}
extension PersonPrior: PropertyEnum {}
extension BackgroundEffect: PropertyEnum {}
extension LockStrategy: PropertyEnum {}
extension DepthKind: PropertyEnum {}
extension DepthColormap: PropertyEnum {}
extension SceneKind: PropertyEnum {}
extension BrightnessMeasure: PropertyEnum {}
extension StackMethod: PropertyEnum {}
extension StackAlign: PropertyEnum {}
extension StackMode: PropertyEnum {}

/// The rows every depth-reading element shares (depth_encoding_properties.def).
protocol DepthEncodingRows {
    var depth_kind: Int32 { get }
    var depth_scale: Double { get }
    var depth_near: Double { get }
    var depth_far: Double { get }
}

/// The rows every depth-drawing element shares (depth_display_properties.def).
protocol DepthDisplayRows {
    var depth_colormap: Int32 { get }
    var range_min: Double { get }
    var range_max: Double { get }
    var hole_argb: UInt32 { get }
}

extension DMDepthMatteSettings: DepthEncodingRows, DepthDisplayRows {}
extension DMDepthViewSettings: DepthEncodingRows, DepthDisplayRows {}
