//! The x86 kernels of the dense search, unsafe code (as is [`crate::huge`]):
//! functions compiled for AVX-512 or AVX2, reached only through the safe
//! functions here, which check at run time that the processor has every
//! feature a kernel is compiled for.

#![allow(unsafe_code)]

use super::TARGETS;
use super::lanes::{TABLE_SPAN, Targets, hits_portable};
use std::arch::is_x86_feature_detected;

/// A table kernel of the dense search ([`super::dense::search_by_table`]).
pub(super) type TableKernel = fn(&mut [u8], &[(&[u16], &[u16])], &mut Targets);

/// The AVX-512 table kernel, if the processor has AVX512F, AVX512BW and
/// AVX512BITALG, every feature it is compiled for.
pub(super) fn table_kernel() -> Option<TableKernel> {
    let has = is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512bitalg");
    has.then_some(mark_targets_checked as TableKernel)
}

/// [`mark_targets_avx512`] behind a safe signature; handed out only by
/// [`table_kernel`].
fn mark_targets_checked(seen: &mut [u8], pairs: &[(&[u16], &[u16])], targets: &mut Targets) {
    // SAFETY: this function is private and reached only through the
    // pointer `table_kernel` returns, which it returns only after
    // detecting AVX512F, AVX512BW and AVX512BITALG, the features
    // `mark_targets_avx512` is compiled for.
    unsafe { mark_targets_avx512(seen, pairs, targets) }
}

/// Which of `targets` some `left[k] ^ right[k]` equals (see
/// [`super::dense::hits`]), with the widest vectors the processor has:
/// 512-bit with AVX512F and AVX512BW (16-bit lanes), else 256-bit with
/// AVX2; `None` with neither.
pub(super) fn hits(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> Option<u32> {
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
        // SAFETY: the processor has AVX512F and AVX512BW, checked just
        // above: every feature `hits_avx512` is compiled for.
        return Some(unsafe { hits_avx512(left, right, targets) });
    }
    if is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        return Some(unsafe { hits_avx2(left, right, targets) });
    }
    None
}

/// Marks in `seen` the values of `targets` that some pair gives, taking
/// them out of `targets`; stops once `targets` is empty. 32 lanes of 16
/// bits: lane `x` is in the table's block when `x ^ base` has no bit above
/// the block; its word `(x ^ base) >> 4` comes from a two-register
/// permute, and bit `x & 15` of it from a bit shuffle.
#[target_feature(enable = "avx512f,avx512bw,avx512bitalg")]
fn mark_targets_avx512(seen: &mut [u8], pairs: &[(&[u16], &[u16])], targets: &mut Targets) {
    if seen.len() <= TABLE_SPAN {
        mark_targets_in_block::<true>(seen, pairs, targets);
    } else {
        mark_targets_in_block::<false>(seen, pairs, targets);
    }
}

/// [`mark_targets_avx512`]; `WHOLE`: every value is in the table's block,
/// so no lane needs the test.
#[target_feature(enable = "avx512f,avx512bw,avx512bitalg")]
fn mark_targets_in_block<const WHOLE: bool>(
    seen: &mut [u8],
    pairs: &[(&[u16], &[u16])],
    targets: &mut Targets,
) {
    use std::arch::x86_64::{
        __m512i, _mm512_andnot_si512, _mm512_bitshuffle_epi64_mask, _mm512_loadu_si512,
        _mm512_maskz_permutex2var_epi16, _mm512_maskz_set1_epi16, _mm512_permutex2var_epi16,
        _mm512_set_epi16, _mm512_set1_epi16, _mm512_srli_epi16, _mm512_storeu_si512,
        _mm512_ternarylogic_epi32, _mm512_testn_epi16_mask,
    };
    const LANES: usize = 32;
    let load = |targets: &Targets| -> [__m512i; 2] {
        // SAFETY: each row is 32 words, one 512-bit unaligned load.
        targets
            .words
            .map(|row| unsafe { _mm512_loadu_si512(row.as_ptr().cast()) })
    };
    let base = _mm512_set1_epi16(targets.base as i16);
    let above = _mm512_set1_epi16(!(TABLE_SPAN as i16 - 1));
    let fifteen = _mm512_set1_epi16(15);
    // Lane m's word sits at bit 16 * (m % 4) of its 64-bit group.
    #[rustfmt::skip]
    let offset = _mm512_set_epi16(
        48, 32, 16, 0, 48, 32, 16, 0, 48, 32, 16, 0, 48, 32, 16, 0,
        48, 32, 16, 0, 48, 32, 16, 0, 48, 32, 16, 0, 48, 32, 16, 0,
    );
    // Only the low byte of each lane indexes a bit.
    const LOW_BYTES: u64 = 0x5555_5555_5555_5555;
    let mut found = |v: u16, targets: &mut Targets| {
        let was = targets.remove(usize::from(v));
        if was {
            seen[usize::from(v)] = 1;
        }
        was
    };
    for &(left, right) in pairs {
        let len = left.len().min(right.len());
        // Pairs up to the first 64-byte boundary of `left` one at a time, so
        // that its loads never straddle two cache lines.
        let skip = left.as_ptr().align_offset(64).min(len);
        for (&x, &y) in left[..skip].iter().zip(&right[..skip]) {
            found(x ^ y, targets);
        }
        let (left, right) = (&left[skip..len], &right[skip..len]);
        let (l32, r32) = (left.chunks_exact(LANES), right.chunks_exact(LANES));
        for (&x, &y) in l32.remainder().iter().zip(r32.remainder()) {
            found(x ^ y, targets);
        }
        let [mut low, mut high] = load(targets);
        for (l, r) in l32.zip(r32) {
            if targets.count == 0 {
                return;
            }
            // SAFETY: both chunks are 32 words, one unaligned load each.
            let (l, r) = unsafe {
                (
                    _mm512_loadu_si512(l.as_ptr().cast()),
                    _mm512_loadu_si512(r.as_ptr().cast()),
                )
            };
            // l ^ r ^ base
            let y = _mm512_ternarylogic_epi32::<0x96>(l, r, base);
            let word = if WHOLE {
                _mm512_permutex2var_epi16(low, _mm512_srli_epi16::<4>(y), high)
            } else {
                let inside = _mm512_testn_epi16_mask(y, above);
                _mm512_maskz_permutex2var_epi16(inside, low, _mm512_srli_epi16::<4>(y), high)
            };
            // (y & 15) | offset
            let index = _mm512_ternarylogic_epi32::<0xEA>(y, fifteen, offset);
            let mut hit = _mm512_bitshuffle_epi64_mask(word, index) & LOW_BYTES;
            if hit != 0 {
                let mut xs = [0u16; LANES];
                // SAFETY: `xs` is 32 words, one unaligned store.
                unsafe { _mm512_storeu_si512(xs.as_mut_ptr().cast(), y) };
                while hit != 0 {
                    let d = xs[hit.trailing_zeros() as usize / 2];
                    if found(d ^ targets.base as u16, targets) {
                        let w = usize::from(d >> 4);
                        let bit = _mm512_maskz_set1_epi16(1 << (w % 32), 1 << (d % 16));
                        if w < 32 {
                            low = _mm512_andnot_si512(bit, low);
                        } else {
                            high = _mm512_andnot_si512(bit, high);
                        }
                    }
                    hit &= hit - 1;
                }
            }
        }
    }
}

/// [`hits`] compiled for AVX-512: 32 lanes of 16 bits, one register.
#[target_feature(enable = "avx512f,avx512bw")]
fn hits_avx512(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> u32 {
    hits_portable::<32>(left, right, targets)
}

/// [`hits`] compiled for AVX2: 16 lanes of 16 bits, one register.
#[target_feature(enable = "avx2")]
fn hits_avx2(left: &[u16], right: &[u16], targets: &[u16; TARGETS]) -> u32 {
    hits_portable::<16>(left, right, targets)
}

/// Each vector [`hits`] kernel the processor has, by name, with its
/// answer: for tests that check every kernel, not just the widest.
#[cfg(test)]
pub(super) fn each_hits_kernel(
    left: &[u16],
    right: &[u16],
    targets: &[u16; TARGETS],
) -> Vec<(&'static str, u32)> {
    let mut answers = Vec::new();
    if is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        answers.push(("avx2", unsafe { hits_avx2(left, right, targets) }));
    }
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
        // SAFETY: the processor has AVX512F and AVX512BW, checked just above.
        answers.push(("avx512", unsafe { hits_avx512(left, right, targets) }));
    }
    answers
}
