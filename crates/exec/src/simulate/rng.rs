//! A small deterministic PRNG (splitmix64): the simulator's only source of
//! variety, seeded from stable hashes so every run draws the same numbers.

use crate::canonical::stable_hash;

/// splitmix64 state.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// An index into a slice of length `len`.
    pub(crate) fn index(&mut self, len: usize) -> usize {
        let len64 = u64::try_from(len).unwrap_or(u64::MAX);
        usize::try_from(self.below(len64)).unwrap_or(0)
    }

    /// An integer in `lo..=hi` (`lo` when the range is empty).
    pub(crate) fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = hi.abs_diff(lo).saturating_add(1);
        let offset = self.below(span);
        lo.saturating_add_unsigned(offset)
    }

    /// A float in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        // The top 53 bits fit an f64 mantissa exactly.
        let top = (self.next_u64() >> 11) as f64;
        top / (1u64 << 53) as f64
    }
}

/// The seed of a child value: the parent's seed and the child's name.
pub(crate) fn child_seed(seed: u64, name: &str) -> u64 {
    stable_hash(&[&seed.to_le_bytes(), name.as_bytes()])
}
