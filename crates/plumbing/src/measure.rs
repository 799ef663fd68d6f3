//! What the benchmarks measure with, once: latency quantiles over timed samples, this
//! process's memory and the machine's load (read from `/proc` on Linux), and seeded random
//! floats for repeatable synthetic vectors.

use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

/// The `q` quantile of sorted samples: the sample at rank `round((n - 1) * q)`; zero when empty.
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let i = (sorted.len().saturating_sub(1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    sorted.get(i).copied().unwrap_or_default()
}

/// p50 and p99 of a set of timings, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    /// The median, µs.
    pub p50_us: f64,
    /// The 99th percentile, µs.
    pub p99_us: f64,
}

impl Latency {
    /// The p50 and p99 of these samples (in any order).
    pub fn of(mut samples: Vec<Duration>) -> Self {
        samples.sort_unstable();
        let us = |q: f64| quantile(&samples, q).as_secs_f64() * 1e6;
        Self {
            p50_us: us(0.5),
            p99_us: us(0.99),
        }
    }
}

/// A memory line of `/proc/self/status` in KiB (`VmRSS` now, `VmHWM` at its peak); `None`
/// off Linux.
pub fn status_kib(key: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The 1-minute load average (`/proc/loadavg`; `None` off Linux): the machine may be shared.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Repeatable random floats in [-1, 1): the same seed gives the same sequence.
pub struct SeededFloats(StdRng);

impl SeededFloats {
    /// A sequence fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Self(StdRng::seed_from_u64(seed))
    }

    /// The next `n` floats.
    pub fn vector(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.0.random_range(-1.0..1.0)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_pick_the_nearest_rank() {
        let ms = |v: u64| Duration::from_millis(v);
        let samples: Vec<Duration> = (1..=101).rev().map(ms).collect();
        let l = Latency::of(samples);
        assert_eq!(l.p50_us, 51_000.0);
        assert_eq!(l.p99_us, 100_000.0);
        assert_eq!(quantile(&[], 0.5), Duration::ZERO);
        assert_eq!(quantile(&[ms(7)], 0.99), ms(7));
    }

    #[test]
    fn the_same_seed_gives_the_same_floats_in_range() {
        let a = SeededFloats::new(42).vector(1000);
        assert_eq!(a, SeededFloats::new(42).vector(1000));
        assert_ne!(a, SeededFloats::new(43).vector(1000));
        assert!(a.iter().all(|x| (-1.0..1.0).contains(x)));
    }
}
