// SPDX-License-Identifier: LGPL-2.1-or-later
/// The low byte of each lane of an eight-lane vector, packed into a word
/// (lane k in bits 8k ..< 8k + 8: byte k in memory on a little-endian
/// host). Swift lowers `SIMD8<UInt8>(truncatingIfNeeded:)` of a wider
/// vector lane by lane through the stack; these are a few shifts.
extension SIMD8 where Scalar == UInt16 {
    @inline(__always) var lowBytes: UInt64 {
        let q = unsafeBitCast(self, to: SIMD2<UInt64>.self)
        @inline(__always) func pack(_ v: UInt64) -> UInt64 {
            var x = v & 0x00ff_00ff_00ff_00ff
            x = (x | x &>> 8) & 0x0000_ffff_0000_ffff
            return (x | x &>> 16) & 0xffff_ffff
        }
        #if _endian(little)
        return pack(q[0]) | pack(q[1]) &<< 32
        #else
        return (0..<8).reduce(0) { $0 | UInt64(self[$1] & 0xff) &<< UInt64(8 * $1) }
        #endif
    }
}

extension SIMD8 where Scalar == Int32 {
    @inline(__always) var lowBytes: UInt64 {
        let q = unsafeBitCast(self, to: SIMD4<UInt64>.self)
        @inline(__always) func pack(_ v: UInt64) -> UInt64 { v & 0xff | (v &>> 24) & 0xff00 }
        #if _endian(little)
        return pack(q[0]) | pack(q[1]) &<< 16 | pack(q[2]) &<< 32 | pack(q[3]) &<< 48
        #else
        return (0..<8).reduce(0) { $0 | UInt64(UInt32(bitPattern: self[$1]) & 0xff) &<< UInt64(8 * $1) }
        #endif
    }
}

/// 0x80 in each byte of `v` equal to `byte`, 0 in the others (exact: no
/// carry crosses a byte).
@inline(__always) func bytesEqual(_ v: UInt64, _ byte: UInt8) -> UInt64 {
    let z = v ^ (0x0101_0101_0101_0101 &* UInt64(byte)), low: UInt64 = 0x7f7f_7f7f_7f7f_7f7f
    return ~(((z & low) &+ low) | z | low)
}

extension SIMD8 where Scalar == UInt32 {
    /// The low 16 bits of each lane, packed into two words (lanes 0-3, then
    /// 4-7; lane k's half in bits 16k: in memory order on a little-endian host).
    @inline(__always) var lowHalves: (UInt64, UInt64) {
        #if _endian(little)
        let q = unsafeBitCast(self, to: SIMD4<UInt64>.self)
        @inline(__always) func pack(_ v: UInt64) -> UInt64 { v & 0xffff | (v &>> 16) & 0xffff_0000 }
        return (pack(q[0]) | pack(q[1]) &<< 32, pack(q[2]) | pack(q[3]) &<< 32)
        #else
        @inline(__always) func half(_ k: Int) -> UInt64 { UInt64(self[k] & 0xffff) &<< UInt64(16 * (k & 3)) }
        return (half(0) | half(1) | half(2) | half(3), half(4) | half(5) | half(6) | half(7))
        #endif
    }
}
