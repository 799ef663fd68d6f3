//! The dense scoring kernels: one query against every row of a row-major matrix, in f32 or in
//! int8, on both cores for large matrices, and the partial top-k over the scores.
//!
//! **f32 kernel: `gemm`.** A query is a matrix-vector product. Measured in release on this
//! project's 2-core machine (the lead's AVX-512 Xeon, 5,000 x 384, one core, p50): the
//! `gemm` crate's gemv path 0.30 ms, the hand-written 16-lane chunked loop it replaces
//! 0.42 ms (compiled for baseline x86-64, so SSE2 only), a `pulp`-dispatched FMA loop 0.37 ms,
//! and `matrixmultiply` 1.15 ms (it packs the whole matrix into panels on every call, which
//! pays off for many queries at once, never for one). `gemm` wins because it picks AVX2/FMA
//! or AVX-512 at run time; it is already in the dependency tree (candle uses it).
//!
//! **int8 kernel.** Each row keeps `i8` codes and one scale (symmetric, per vector), the query
//! is quantized the same way, and the score is the `i32` dot product of the codes times both
//! scales. The loop is plain Rust run inside `pulp`'s run-time CPU dispatch, so the compiler
//! vectorizes it for AVX2 (or AVX-512) without `unsafe`. A quarter of the bytes to stream;
//! callers rescore the best candidates exactly in f32 (see [`crate::DenseSettings::rescore`]).
//!
//! **Two cores.** Above [`PARALLEL_FLOATS`] the rows are split in two halves scored by
//! `rayon::join` on rayon's persistent pool (no thread is spawned per query, which was one
//! source of the old kernel's jitter).

use std::cell::RefCell;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Matrix elements above which scoring splits the rows over two threads (about 5,000 rows of
/// 384 dimensions: below it, waking the second thread costs more than it saves).
pub(crate) const PARALLEL_FLOATS: usize = 2_000_000;

thread_local! {
    /// Per-thread score buffer, reused across queries (no allocation and no fresh pages to
    /// fault in per query).
    static SCORES: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's score buffer resized to `rows` (zeroed only when it grows).
pub(crate) fn with_scores<R>(rows: usize, f: impl FnOnce(&mut [f32]) -> R) -> R {
    SCORES.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            buf.resize(rows, 0.0);
            f(&mut buf[..rows])
        }
        // Re-entered on the same thread (cannot happen today): a fresh buffer.
        Err(_) => f(&mut vec![0.0; rows]),
    })
}

/// The dot product of `q` with every `dims`-float row of the row-major `matrix` into `out`
/// (one slot per row).
pub(crate) fn score_rows_into(matrix: &[f32], dims: usize, q: &[f32], out: &mut [f32]) {
    let dims = dims.max(1);
    let rows = (matrix.len() / dims).min(out.len());
    if q.len() != dims || rows == 0 {
        out.iter_mut().for_each(|s| *s = 0.0);
        return;
    }
    let (matrix, out) = (&matrix[..rows * dims], &mut out[..rows]);
    split(matrix.len(), rows, out, |lo, o| {
        gemv(&matrix[lo * dims..(lo + o.len()) * dims], dims, q, o);
    });
}

/// The dot product of `q` with every `dims`-float row of `matrix`, as a new vector.
#[cfg(test)]
pub(crate) fn score_rows(matrix: &[f32], dims: usize, q: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0; matrix.len() / dims.max(1)];
    score_rows_into(matrix, dims, q, &mut out);
    out
}

/// Calls `fill(first_row, out_part)` on the whole of `out`, or on its two halves on two
/// threads when the matrix has at least [`PARALLEL_FLOATS`] elements.
fn split(elements: usize, rows: usize, out: &mut [f32], fill: impl Fn(usize, &mut [f32]) + Sync) {
    if elements < PARALLEL_FLOATS || rows < 2 || rayon::current_num_threads() < 2 {
        fill(0, out);
        return;
    }
    let half = rows / 2;
    let (o1, o2) = out.split_at_mut(half);
    rayon::join(|| fill(0, o1), || fill(half, o2));
}

/// `out = matrix · q` for a row-major `matrix` of `out.len()` rows and `q.len()` columns.
#[allow(unsafe_code)]
fn gemv(matrix: &[f32], dims: usize, q: &[f32], out: &mut [f32]) {
    let rows = out.len();
    if matrix.len() != rows * dims || q.len() != dims {
        return;
    }
    // SAFETY: `gemm` reads `rows x dims` elements of `matrix` (row stride `dims`, column
    // stride 1) and `dims` of `q`, and writes `rows` of `out` (stride 1); the lengths were
    // checked just above, and the three slices cannot overlap (`out` is borrowed mutably).
    // With `read_dst = false` the old content of `out` is not read (alpha is ignored).
    unsafe {
        gemm::gemm(
            rows,
            1,
            dims,
            out.as_mut_ptr(),
            1,
            1,
            false,
            matrix.as_ptr(),
            1,
            dims as isize,
            q.as_ptr(),
            1,
            1,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Vectors stored as `i8` codes with one f32 scale per vector: a quarter of the f32 bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Int8Matrix {
    dims: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl Int8Matrix {
    /// Quantizes every `dims`-float row of `matrix`.
    pub(crate) fn quantize(matrix: &[f32], dims: usize) -> Self {
        let dims = dims.max(1);
        let rows = matrix.len() / dims;
        let mut codes = vec![0i8; rows * dims];
        let mut scales = Vec::with_capacity(rows);
        for (row, dst) in matrix.chunks_exact(dims).zip(codes.chunks_exact_mut(dims)) {
            scales.push(quantize_into(row, dst));
        }
        Self {
            dims,
            codes,
            scales,
        }
    }

    /// Bytes held: the codes and the scales.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.codes.capacity() + self.scales.capacity() * size_of::<f32>()
    }

    /// The approximate dot product of the f32 query `q` with every row, into `out`.
    pub(crate) fn score_into(&self, q: &[f32], out: &mut [f32]) {
        let dims = self.dims;
        let rows = self.scales.len().min(out.len());
        if q.len() != dims || rows == 0 {
            out.iter_mut().for_each(|s| *s = 0.0);
            return;
        }
        let mut qc = vec![0i8; dims];
        let q_scale = quantize_into(q, &mut qc);
        let out = &mut out[..rows];
        // Half the bytes of f32 count as much work: int8 rows are four times smaller.
        split(self.codes.len() / 2, rows, out, |lo, o| {
            let codes = &self.codes[lo * dims..(lo + o.len()) * dims];
            let scales = &self.scales[lo..lo + o.len()];
            pulp::Arch::new().dispatch(Int8Rows {
                codes,
                scales,
                dims,
                q: &qc,
                q_scale,
                out: o,
            });
        });
    }
}

/// One int8 scoring pass, as a [`pulp::WithSimd`] so its loop is compiled once per CPU level
/// (AVX2, AVX-512...) and the fastest one the CPU has runs.
struct Int8Rows<'a> {
    codes: &'a [i8],
    scales: &'a [f32],
    dims: usize,
    q: &'a [i8],
    q_scale: f32,
    out: &'a mut [f32],
}

impl pulp::WithSimd for Int8Rows<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let rows = self.codes.chunks_exact(self.dims);
        for ((row, s), scale) in rows.zip(self.out.iter_mut()).zip(self.scales) {
            *s = dot_i8(row, self.q) as f32 * scale * self.q_scale;
        }
    }
}

/// Writes the int8 codes of `v` into `dst` and returns the scale (`v[i] ≈ dst[i] * scale`).
fn quantize_into(v: &[f32], dst: &mut [i8]) -> f32 {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        dst.iter_mut().for_each(|c| *c = 0);
        return 0.0;
    }
    let scale = max / 127.0;
    for (c, x) in dst.iter_mut().zip(v) {
        // In [-127, 127] by construction of `scale`; the cast saturates anyway.
        *c = (x / scale).round() as i8;
    }
    scale
}

/// The `i32` dot product of two code vectors (no overflow: 384 x 127 x 127 is about 6.2 M).
#[inline(always)]
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum()
}

/// A candidate in the top-k heap: ordered by score, then by lower index (ties go to the
/// earlier document, as in [`crate::retriever::top_k`]).
#[derive(Clone, Copy, Debug)]
struct Scored(u32, f32);

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.1.total_cmp(&other.1).then(other.0.cmp(&self.0))
    }
}

/// The `k` best `(index, score)` of `scores` among the indexes `keep` accepts, best first
/// (ties: lower index first). One pass with a `k`-sized heap, no copy of all the scores.
pub(crate) fn top_scores(
    scores: &[f32],
    k: usize,
    keep: impl Fn(usize) -> bool,
) -> Vec<(u32, f32)> {
    if k == 0 {
        return Vec::new();
    }
    let mut heap: BinaryHeap<Reverse<Scored>> = BinaryHeap::with_capacity(k + 1);
    for (i, &s) in scores.iter().enumerate() {
        let candidate = Scored(u32::try_from(i).unwrap_or(u32::MAX), s);
        if heap.len() == k {
            match heap.peek() {
                Some(Reverse(worst)) if candidate > *worst => {}
                _ => continue,
            }
        }
        if !keep(i) {
            continue;
        }
        heap.push(Reverse(candidate));
        if heap.len() > k {
            heap.pop();
        }
    }
    let mut best: Vec<(u32, f32)> = heap.into_iter().map(|Reverse(s)| (s.0, s.1)).collect();
    best.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    best
}

/// The f32 dot product, run inside `pulp`'s CPU dispatch so it is vectorized for AVX2 or
/// AVX-512 (the int8 rescoring calls it once per candidate).
pub(crate) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    pulp::Arch::new().dispatch(DotF32(a, b))
}

struct DotF32<'a>(&'a [f32], &'a [f32]);

impl pulp::WithSimd for DotF32<'_> {
    type Output = f32;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> f32 {
        dot_lanes(self.0, self.1)
    }
}

/// Floats per step of the dot product (two AVX registers, four SSE ones).
pub(crate) const LANES: usize = 16;

/// Dot product over [`LANES`]-float chunks with independent accumulators, so it vectorizes.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    dot_lanes(a, b)
}

/// [`dot`], always inlined (so a caller compiled for AVX2 or AVX-512 vectorizes it for them).
#[inline(always)]
pub(crate) fn dot_lanes(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for ((s, x), y) in acc.iter_mut().zip(x).zip(y) {
            *s += x * y;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// Scales `v` to unit length (leaves a zero vector alone).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = dot(v, v).sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retriever::top_k;

    /// xorshift64*: fixed-seed floats in [-1, 1).
    pub(crate) fn random(seed: &mut u64, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| {
                *seed ^= *seed >> 12;
                *seed ^= *seed << 25;
                *seed ^= *seed >> 27;
                let bits = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
                bits as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
            })
            .collect()
    }

    fn unit_rows(seed: &mut u64, rows: usize, dims: usize) -> Vec<f32> {
        let mut m = random(seed, rows * dims);
        m.chunks_exact_mut(dims).for_each(normalize);
        m
    }

    #[test]
    fn gemm_scores_equal_the_plain_dot_product_on_one_and_two_threads() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let dims = 384;
        // Above the threshold, so the two-thread path runs too.
        let rows = PARALLEL_FLOATS / dims + 7;
        let matrix = unit_rows(&mut seed, rows, dims);
        let q = unit_rows(&mut seed, 1, dims);
        for m in [&matrix[..50 * dims], &matrix[..]] {
            let fast = score_rows(m, dims, &q);
            assert_eq!(fast.len(), m.len() / dims);
            for (row, s) in m.chunks_exact(dims).zip(&fast) {
                let plain: f32 = row.iter().zip(&q).map(|(a, b)| a * b).sum();
                assert!((plain - s).abs() < 1e-5, "{plain} vs {s}");
            }
        }
        // Odd dimensions (no SIMD-width multiple) too.
        let m = unit_rows(&mut seed, 33, 37);
        let q = unit_rows(&mut seed, 1, 37);
        for (row, s) in m.chunks_exact(37).zip(score_rows(&m, 37, &q)) {
            let plain: f32 = row.iter().zip(&q).map(|(a, b)| a * b).sum();
            assert!((plain - s).abs() < 1e-5, "{plain} vs {s}");
        }
    }

    #[test]
    fn heap_top_k_equals_the_full_sort_and_respects_the_filter() {
        let mut seed = 7u64;
        let mut scores = random(&mut seed, 5_000);
        // Ties: equal scores must come out lower index first.
        scores[10] = 0.999;
        scores[20] = 0.999;
        let pairs: Vec<(u32, f32)> = scores
            .iter()
            .enumerate()
            .map(|(i, &s)| (i as u32, s))
            .collect();
        for k in [1, 10, 100, 6_000] {
            assert_eq!(top_scores(&scores, k, |_| true), top_k(pairs.clone(), k));
        }
        let even: Vec<(u32, f32)> = pairs.iter().copied().filter(|p| p.0 % 2 == 0).collect();
        assert_eq!(top_scores(&scores, 10, |i| i % 2 == 0), top_k(even, 10));
        assert!(top_scores(&scores, 0, |_| true).is_empty());
    }

    #[test]
    fn int8_scores_stay_within_the_quantization_error() {
        let mut seed = 11u64;
        let dims = 384;
        let rows = PARALLEL_FLOATS / dims + 3;
        let matrix = unit_rows(&mut seed, rows, dims);
        let q = unit_rows(&mut seed, 1, dims);
        let int8 = Int8Matrix::quantize(&matrix, dims);
        assert!(int8.heap_bytes() * 3 < matrix.len() * size_of::<f32>());
        let mut approx = vec![0.0; rows];
        int8.score_into(&q, &mut approx);
        let exact = score_rows(&matrix, dims, &q);
        let worst = exact
            .iter()
            .zip(&approx)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 0.01, "int8 error {worst}");
        assert!(worst > 0.0, "int8 scores cannot be exact");
    }
}
