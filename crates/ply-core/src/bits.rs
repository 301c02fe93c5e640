//! BMI2's bit gather and scatter, where the build targets a processor
//! that has them (`.cargo/config.toml` asks for x86-64-v3): the ranking of
//! point sets in the games' hot loops packs and spreads bits this way, one
//! instruction each where byte tables take several dependent loads. Builds
//! without BMI2 keep their tables and do not compile this module.
#![allow(unsafe_code)]

use std::arch::x86_64::{_pdep_u32, _pdep_u64, _pext_u32};

/// The bits of `bits` at the set bits of `mask`, packed to the bottom in
/// order (`pext`).
#[inline]
pub fn gather(bits: u32, mask: u32) -> u32 {
    // SAFETY: this module is compiled only where the whole build assumes
    // BMI2 (`cfg(target_feature = "bmi2")`): the compiler may already emit
    // BMI2 instructions anywhere in the binary, so calling `pext` adds no
    // requirement on the processor. The instruction reads and writes only
    // registers.
    unsafe { _pext_u32(bits, mask) }
}

/// The low bits of `packed` placed, in order, at the set bits of `mask`
/// (`pdep`).
#[inline]
pub fn scatter(packed: u32, mask: u32) -> u32 {
    // SAFETY: as for `gather`: the build assumes BMI2 throughout, and
    // `pdep` touches registers only.
    unsafe { _pdep_u32(packed, mask) }
}

/// The low bits of `packed` placed, in order, at the set bits of `mask`
/// (`pdep`), 64 bits wide.
#[inline]
pub fn scatter64(packed: u64, mask: u64) -> u64 {
    // SAFETY: as for `gather`: the build assumes BMI2 throughout, and
    // `pdep` touches registers only.
    unsafe { _pdep_u64(packed, mask) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_and_scatter_move_bits_in_order() {
        assert_eq!(gather(0b1010_0110, 0b1111_0000), 0b1010);
        assert_eq!(gather(0b1010_0110, 0b0101_0101), 0b0010);
        assert_eq!(scatter(0b1011, 0b1111_0000), 0b1011_0000);
        assert_eq!(scatter(0b0110, 0b1010_1010), 0b0010_1000);
        for mask in [0u32, 1, 0x00FF_FF00, 0xDEAD_BEEF, u32::MAX] {
            let bits = 0x1234_5678 ^ mask.rotate_left(5);
            assert_eq!(scatter(gather(bits, mask), mask), bits & mask);
        }
        assert_eq!(
            scatter64(0b101, 0xF000_0000_0000_0001),
            0x2000_0000_0000_0001
        );
        assert_eq!(scatter64(u64::MAX, 0x8000_0000_0000_0000), 1 << 63);
    }
}
