// SPDX-License-Identifier: LGPL-2.1-or-later
/// The loadable plugin (libgstdepthmatte.so): the shim, the bridges and the kit
/// linked together with the Swift runtime (-static-stdlib, so the plugin loads
/// from any folder). The code lives in GstShim, GstDepthMatte and
/// DepthMatteKit; this target only carries the plugin's link settings, which
/// the bridge's tests (Tests/BridgeTests) must not inherit.
@_exported import GstDepthMatte
