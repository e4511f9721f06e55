// SPDX-License-Identifier: LGPL-2.1-or-later
/// The few transcendental functions the kit needs, evaluated only when a
/// setting changes (kernel weights, lookup tables), once a frame (a region's
/// rotation) or per value of a model's output (a sigmoid), never per pixel
/// of a frame.
/// Glibc's libm, not Foundation.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@inline(__always) func mathExp(_ x: Double) -> Double { exp(x) }
@inline(__always) func mathPow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
@inline(__always) func mathExpf(_ x: Float) -> Float { expf(x) }
@inline(__always) func mathAtan2f(_ y: Float, _ x: Float) -> Float { atan2f(y, x) }
@inline(__always) func mathCosf(_ x: Float) -> Float { cosf(x) }
@inline(__always) func mathSinf(_ x: Float) -> Float { sinf(x) }
