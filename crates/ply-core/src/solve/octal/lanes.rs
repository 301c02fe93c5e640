//! What the dense kernel and its x86 kernels share: the bit table of values
//! searched for and the portable search the x86 kernels fall back on. Both
//! `dense` and `x86` import this module; `x86` imports nothing of `dense`,
//! so the two form no circle.

use super::TARGETS;

/// The values one table covers: 64 words of 16 bits, two 512-bit registers.
pub(super) const TABLE_SPAN: usize = 1024;

/// Values searched for, as a bit table over `base..base + TABLE_SPAN`:
/// bit `v % 16` of word `(v - base) / 16`.
pub(super) struct Targets {
    pub(super) base: usize,
    pub(super) words: [[u16; 32]; 2],
    pub(super) count: usize,
}

impl Targets {
    /// No values, over the block from `base`, a multiple of [`TABLE_SPAN`].
    pub(super) fn new(base: usize) -> Self {
        Self {
            base,
            words: [[0; 32]; 2],
            count: 0,
        }
    }

    /// Adds `v`, which is in the block and not in yet.
    pub(super) fn add(&mut self, v: usize) {
        let w = (v - self.base) / 16;
        self.words[w / 32][w % 32] |= 1 << (v % 16);
        self.count += 1;
    }

    /// Takes `v` out, if it is in.
    pub(super) fn remove(&mut self, v: usize) -> bool {
        let Some(w) = v.checked_sub(self.base).map(|d| d / 16).filter(|&w| w < 64) else {
            return false;
        };
        let word = &mut self.words[w / 32][w % 32];
        let bit = 1 << (v % 16);
        let was = *word & bit != 0;
        *word &= !bit;
        self.count -= usize::from(was);
        was
    }
}

/// `dense::hits` for any processor: in each of `LANES` lanes, the least
/// `left ^ right ^ target` for each target, which is 0 where one is found.
#[inline(always)]
pub(super) fn hits_portable<const LANES: usize>(
    left: &[u16],
    right: &[u16],
    targets: &[u16; TARGETS],
) -> u32 {
    const SPAN: usize = 1024;
    let all = (1u32 << TARGETS) - 1;
    let mut hit = 0u32;
    let len = left.len().min(right.len());
    for (left, right) in left[..len].chunks(SPAN).zip(right[..len].chunks(SPAN)) {
        let mut least = [[u16::MAX; LANES]; TARGETS];
        let (l16, r16) = (left.chunks_exact(LANES), right.chunks_exact(LANES));
        for (&x, &y) in l16.remainder().iter().zip(r16.remainder()) {
            for (t, &target) in targets.iter().enumerate() {
                least[t][0] = least[t][0].min(x ^ y ^ target);
            }
        }
        for (l, r) in l16.zip(r16) {
            let l: &[u16; LANES] = l.try_into().expect("LANES values");
            let r: &[u16; LANES] = r.try_into().expect("LANES values");
            let mut xor = [0u16; LANES];
            for lane in 0..LANES {
                xor[lane] = l[lane] ^ r[lane];
            }
            for (t, &target) in targets.iter().enumerate() {
                for lane in 0..LANES {
                    least[t][lane] = least[t][lane].min(xor[lane] ^ target);
                }
            }
        }
        for (t, lanes) in least.iter().enumerate() {
            if lanes.contains(&0) {
                hit |= 1 << t;
            }
        }
        if hit == all {
            break;
        }
    }
    hit
}
