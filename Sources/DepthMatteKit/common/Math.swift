// SPDX-License-Identifier: LGPL-2.1-or-later
/// The few transcendental functions the kit needs, evaluated only when a
/// setting changes (kernel weights, lookup tables), never per pixel.
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
