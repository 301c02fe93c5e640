//! The sparse space method (see the parent module): the mask that makes
//! rare heaps few, chosen from the values with a Walsh-Hadamard transform,
//! and the mex of one heap from its pairs with a rare heap.

use super::*;
use crate::solve::mex::MexSet;
use crate::value::Nimber;

#[derive(Clone, Debug)]
pub(super) struct Mask {
    bits: u16,
    /// Domain type: rare heaps have value parity equal to that of `n - t`.
    domain: bool,
    /// A splitting removal count; all have its parity under the domain type.
    t: usize,
    /// Bit `v` of word `w` is set when `64w + v` has odd parity under the
    /// mask (values past 65535 repeat, as the mask has 16 bits).
    odd: Vec<u64>,
}

impl Mask {
    fn new(bits: u16, domain: bool, t: usize) -> Self {
        let mut odd = vec![0u64; 1024];
        for v in 0..=u16::MAX {
            if parity(v, bits) == 1 {
                odd[usize::from(v) / 64] |= 1 << (v % 64);
            }
        }
        Self {
            bits,
            domain,
            t,
            odd,
        }
    }

    /// The parity rare heaps of size `n` have.
    fn rare_parity(&self, n: usize) -> u8 {
        if self.domain {
            ((n ^ self.t) & 1) as u8
        } else {
            0
        }
    }

    pub(super) fn is_rare(&self, n: usize, value: u16) -> bool {
        parity(value, self.bits) == self.rare_parity(n)
    }

    /// The scarce parity of options of heap `n`: that of XORs of a rare and
    /// a common heap whose sizes add up to `n` less a splitting removal
    /// (which has the parity of `t`, so the sum has the parity of `n - t`).
    fn scarce_parity(&self, n: usize) -> u8 {
        1 ^ self.rare_parity(n)
    }

    /// The values in word `word` with parity `parity`.
    fn class_word(&self, parity: u8, word: usize) -> u64 {
        let odd = self.odd[word % 1024];
        if parity == 1 { odd } else { !odd }
    }
}

/// Steps 1 to 3 of the sparse space method for heap `n` (see the module
/// docs); `found` already holds the options that leave at most one heap.
pub(super) fn sparse_mex(
    n: usize,
    values: &[u16],
    split: &[usize],
    mask: &Mask,
    rare: &[u32],
    found: &mut MexSet,
) -> Nimber {
    let scarce = mask.scarce_parity(n);
    for &i in split {
        if n < i + 2 {
            continue;
        }
        let rest = n - i;
        for &r in rare {
            let r = r as usize;
            if r >= rest {
                break;
            }
            found.insert(Nimber::from(values[r] ^ values[rest - r]));
        }
    }
    let candidate = found.least_missing(|word| mask.class_word(scarce, word));
    let abundant = |v: Nimber| parity(v as u16, mask.bits) != scarce;
    let mut missing = (0..candidate)
        .filter(|&v| abundant(v) && !found.contains(v))
        .count();
    let mut a = 1;
    while missing > 0 {
        let mut any = false;
        for &i in split {
            if n < i + 2 || 2 * a > n - i {
                continue;
            }
            any = true;
            let v = Nimber::from(values[a] ^ values[n - i - a]);
            if v < candidate && found.insert(v) && abundant(v) {
                missing -= 1;
            }
        }
        if !any {
            break;
        }
        a += 1;
    }
    if missing == 0 { candidate } else { found.mex() }
}

/// The Walsh-Hadamard transform in place: `h[m]` becomes the sum over `v`
/// of `h[v]` times -1 to the parity of `v & m`.
pub(super) fn walsh_hadamard(h: &mut [i64]) {
    let mut len = 1;
    while len < h.len() {
        for block in h.chunks_mut(2 * len) {
            let (low, high) = block.split_at_mut(len);
            for (x, y) in low.iter_mut().zip(high.iter_mut()) {
                (*x, *y) = (*x + *y, *x - *y);
            }
        }
        len *= 2;
    }
}

impl Engine {
    /// Chooses the mask that makes the fewest of the later half of `values`
    /// rare, and lists the rare heaps under it. Keeps every option visited
    /// (no mask) if the game never splits a heap.
    pub(super) fn choose_mask(&mut self, values: &[u16]) {
        if self.split.is_empty() {
            return;
        }
        let max = values.iter().copied().max().unwrap_or(0);
        let bits = 16 - max.leading_zeros();
        let size = 1usize << bits;
        let t = self.split[0];
        // hist[h][v]: heaps in the window with value v and (n - t) of parity h.
        let mut hist = [vec![0i64; size], vec![0i64; size]];
        let window = values.len() / 2..values.len();
        for n in window.clone() {
            hist[(n ^ t) & 1][usize::from(values[n])] += 1;
        }
        let totals = [hist[0].iter().sum::<i64>(), hist[1].iter().sum::<i64>()];
        for h in &mut hist {
            walsh_hadamard(h);
        }
        // Rare heaps for mask m: range type, those with even values:
        // (H + W0(m) + W1(m)) / 2; domain type: even values where n - t is
        // even, odd ones where it is odd: (H0 + W0(m) + H1 - W1(m)) / 2.
        let mut best: Option<(i64, u16, bool)> = None;
        let walsh = hist[0].iter().zip(&hist[1]).enumerate().skip(1);
        for (m, (&w0, &w1)) in walsh {
            let range = (totals[0] + totals[1] + w0 + w1) / 2;
            let domain = (totals[0] + w0 + totals[1] - w1) / 2;
            let mut consider = |count: i64, domain: bool| {
                if best.is_none_or(|(c, _, _)| count < c) {
                    best = Some((count, m as u16, domain));
                }
            };
            consider(range, false);
            if self.domain_allowed {
                consider(domain, true);
            }
        }
        let Some((_, bits, domain)) = best else {
            return;
        };
        let mask = Mask::new(bits, domain, t);
        self.rare = (1..values.len())
            .filter(|&n| mask.is_rare(n, values[n]))
            .map(|n| n as u32)
            .collect();
        // With more rare heaps, the dense kernel is faster.
        self.mask = (self.rare.len() * SPARSE_RATIO < values.len()).then_some(mask);
        if self.mask.is_none() {
            self.rare.clear();
        }
    }
}
