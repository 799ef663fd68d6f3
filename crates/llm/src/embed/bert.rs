//! A BERT encoder forward pass written for sentence embedding on the CPU: the fast path of the
//! local embedder.
//!
//! Why not a general tensor library's BERT: that runs one allocated tensor per operation,
//! pads every text of a batch to the longest one and masks the padding, and evaluates GELU's
//! `erf` one scalar at a time. Here
//! - the texts of a batch are *packed*: their tokens are stacked into one `tokens x hidden`
//!   matrix, so the projections (where nearly all the work is) are one matrix product per
//!   layer with no padding at all, and attention runs per text on its own rows;
//! - query, key and value are one fused `hidden x 3*hidden` projection, the attention scale
//!   is folded into the score product, the residuals are accumulated by the matrix product
//!   itself, and bias, GELU and layer norm are one pass each over a row;
//! - the work buffers live in a thread-local scratch, reused from call to call;
//! - `exp` and `erf` are branch-free polynomials (relative error about 1e-7) that the
//!   compiler vectorizes, and every element-wise pass runs inside `pulp`'s run-time CPU
//!   dispatch ([`simd`]), so it is compiled for AVX-512 or AVX2 rather than the baseline
//!   x86-64 (SSE2) the crate is built for.
//!
//! Matrix products go through the `gemm` crate (built with its AVX-512 kernels, picked at run
//! time). The result equals the reference forward within float rounding (the tests compare
//! cosine >= 0.9999 on fixed texts).

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_transformers::models::bert::{Config, HiddenAct};

use crate::error::{Error, Result};

/// How many threads one matrix product may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Threads {
    /// The calling thread only (when several batches already run in parallel).
    One,
    /// Up to this many threads of rayon's pool (one text: the products split over cores).
    Many(usize),
}

impl Threads {
    fn parallelism(self) -> gemm::Parallelism {
        match self {
            Threads::One | Threads::Many(0 | 1) => gemm::Parallelism::None,
            Threads::Many(n) => gemm::Parallelism::Rayon(n),
        }
    }
}

/// A layer norm's scale and shift.
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

/// One transformer layer, weights transposed to `in x out` row-major.
struct Layer {
    qkv_w: Vec<f32>,
    qkv_b: Vec<f32>,
    out_w: Vec<f32>,
    out_b: Vec<f32>,
    norm1: Norm,
    up_w: Vec<f32>,
    up_b: Vec<f32>,
    down_w: Vec<f32>,
    down_b: Vec<f32>,
    norm2: Norm,
}

/// A BERT encoder's weights, ready for [`Encoder::embed`].
pub(crate) struct Encoder {
    hidden: usize,
    heads: usize,
    inter: usize,
    eps: f32,
    max_positions: usize,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    type_vocab: usize,
    vocab: usize,
    norm: Norm,
    layers: Vec<Layer>,
}

fn model_err(what: impl Into<String>) -> Error {
    let what = what.into();
    Error::LocalModel {
        source: what.clone().into(),
        what: "the BERT encoder".to_owned(),
    }
}

/// The tensors of a safetensors file, looked up with or without a `bert.` prefix.
struct Weights {
    tensors: HashMap<String, Tensor>,
    prefix: &'static str,
}

impl Weights {
    fn get(&self, name: &str) -> Result<&Tensor> {
        let full = format!("{}{name}", self.prefix);
        self.tensors
            .get(&full)
            .ok_or_else(|| model_err(format!("the weights have no tensor `{full}`")))
    }

    /// A tensor as row-major floats, checking its shape.
    fn flat(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let t = self.get(name)?;
        if t.dims() != shape {
            return Err(model_err(format!(
                "tensor `{name}` has shape {:?}, expected {shape:?}",
                t.dims()
            )));
        }
        to_vec(t, name)
    }

    /// A linear layer's `out x in` weight, transposed to `in x out` row-major.
    fn linear_t(&self, name: &str, input: usize, output: usize) -> Result<Vec<f32>> {
        let t = self.get(name)?;
        if t.dims() != [output, input] {
            return Err(model_err(format!(
                "tensor `{name}` has shape {:?}, expected [{output}, {input}]",
                t.dims()
            )));
        }
        let t = t
            .t()
            .and_then(|t| t.contiguous())
            .map_err(|e| model_err(format!("transposing `{name}`: {e}")))?;
        to_vec(&t, name)
    }

    fn norm(&self, name: &str, hidden: usize) -> Result<Norm> {
        Ok(Norm {
            gamma: self.flat(&format!("{name}.weight"), &[hidden])?,
            beta: self.flat(&format!("{name}.bias"), &[hidden])?,
        })
    }
}

fn to_vec(t: &Tensor, name: &str) -> Result<Vec<f32>> {
    t.to_dtype(DType::F32)
        .and_then(|t| t.flatten_all())
        .and_then(|t| t.to_vec1::<f32>())
        .map_err(|e| model_err(format!("reading `{name}`: {e}")))
}

/// Puts `parts` (each `rows x width_i` row-major) side by side into one `rows x sum(width)`.
fn side_by_side(parts: &[&[f32]], rows: usize) -> Vec<f32> {
    let widths: Vec<usize> = parts.iter().map(|p| p.len() / rows.max(1)).collect();
    let total: usize = widths.iter().sum();
    let mut out = Vec::with_capacity(rows * total);
    for r in 0..rows {
        for (p, &w) in parts.iter().zip(&widths) {
            out.extend_from_slice(p.get(r * w..(r + 1) * w).unwrap_or_default());
        }
    }
    out
}

impl Encoder {
    /// Loads the weights of `model.safetensors` for `config` (blocking).
    pub(crate) fn load(weights_path: &Path, config: &Config) -> Result<Self> {
        if config.hidden_act != HiddenAct::Gelu {
            return Err(model_err(format!(
                "the fast encoder runs GELU (erf) models only, not {:?}",
                config.hidden_act
            )));
        }
        let hidden = config.hidden_size;
        let heads = config.num_attention_heads;
        let inter = config.intermediate_size;
        if heads == 0 || !hidden.is_multiple_of(heads) {
            return Err(model_err(format!(
                "hidden size {hidden} is not a multiple of {heads} attention heads"
            )));
        }
        let tensors = candle_core::safetensors::load(weights_path, &Device::Cpu).map_err(|e| {
            Error::LocalModel {
                what: format!("reading {}", weights_path.display()),
                source: Box::new(e),
            }
        })?;
        let prefix = if tensors.contains_key("embeddings.word_embeddings.weight") {
            ""
        } else {
            "bert."
        };
        let w = Weights { tensors, prefix };
        let vocab = config.vocab_size;
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{i}");
            let q = w.linear_t(&format!("{p}.attention.self.query.weight"), hidden, hidden)?;
            let k = w.linear_t(&format!("{p}.attention.self.key.weight"), hidden, hidden)?;
            let v = w.linear_t(&format!("{p}.attention.self.value.weight"), hidden, hidden)?;
            let mut qkv_b = w.flat(&format!("{p}.attention.self.query.bias"), &[hidden])?;
            qkv_b.extend(w.flat(&format!("{p}.attention.self.key.bias"), &[hidden])?);
            qkv_b.extend(w.flat(&format!("{p}.attention.self.value.bias"), &[hidden])?);
            layers.push(Layer {
                qkv_w: side_by_side(&[&q, &k, &v], hidden),
                qkv_b,
                out_w: w.linear_t(
                    &format!("{p}.attention.output.dense.weight"),
                    hidden,
                    hidden,
                )?,
                out_b: w.flat(&format!("{p}.attention.output.dense.bias"), &[hidden])?,
                norm1: w.norm(&format!("{p}.attention.output.LayerNorm"), hidden)?,
                up_w: w.linear_t(&format!("{p}.intermediate.dense.weight"), hidden, inter)?,
                up_b: w.flat(&format!("{p}.intermediate.dense.bias"), &[inter])?,
                down_w: w.linear_t(&format!("{p}.output.dense.weight"), inter, hidden)?,
                down_b: w.flat(&format!("{p}.output.dense.bias"), &[hidden])?,
                norm2: w.norm(&format!("{p}.output.LayerNorm"), hidden)?,
            });
        }
        Ok(Self {
            hidden,
            heads,
            inter,
            eps: config.layer_norm_eps as f32,
            max_positions: config.max_position_embeddings,
            word: w.flat("embeddings.word_embeddings.weight", &[vocab, hidden])?,
            position: w.flat(
                "embeddings.position_embeddings.weight",
                &[config.max_position_embeddings, hidden],
            )?,
            token_type: w.flat(
                "embeddings.token_type_embeddings.weight",
                &[config.type_vocab_size, hidden],
            )?,
            type_vocab: config.type_vocab_size,
            vocab,
            norm: w.norm("embeddings.LayerNorm", hidden)?,
            layers,
        })
    }

    /// The mean-pooled, L2-normalized embedding of each text of a batch. Each text is its
    /// word-piece ids and token type ids (same length, at most the model's positions).
    pub(crate) fn embed(
        &self,
        texts: &[(&[u32], &[u32])],
        threads: Threads,
    ) -> Result<Vec<Vec<f32>>> {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.embed_with(texts, threads, &mut scratch),
            // Only reachable by re-entrance (a matrix product's worker running another
            // embedding on this thread): use a fresh scratch.
            Err(_) => self.embed_with(texts, threads, &mut Scratch::default()),
        })
    }

    fn embed_with(
        &self,
        texts: &[(&[u32], &[u32])],
        threads: Threads,
        s: &mut Scratch,
    ) -> Result<Vec<Vec<f32>>> {
        let h = self.hidden;
        let par = threads.parallelism();
        // Row offsets of each text in the packed matrix; an empty text still gets one
        // zero-id row so every text has a vector (the tokenizer adds [CLS]/[SEP] anyway).
        let mut spans = Vec::with_capacity(texts.len());
        let mut total = 0usize;
        for (ids, types) in texts {
            if ids.len() != types.len() {
                return Err(model_err(format!(
                    "{} ids but {} token types",
                    ids.len(),
                    types.len()
                )));
            }
            if ids.len() > self.max_positions {
                return Err(model_err(format!(
                    "{} word pieces, more than the model's {} positions",
                    ids.len(),
                    self.max_positions
                )));
            }
            let n = ids.len().max(1);
            spans.push((total, n));
            total += n;
        }
        s.resize(total, h, self.inter);

        // Embeddings: word + position + token type, then layer norm.
        let x = &mut s.x;
        simd(
            #[inline(always)]
            || -> Result<()> {
                for ((ids, types), &(start, n)) in texts.iter().zip(&spans) {
                    for pos in 0..n {
                        let id = ids.get(pos).copied().unwrap_or(0) as usize;
                        let tt = types.get(pos).copied().unwrap_or(0) as usize;
                        if id >= self.vocab || tt >= self.type_vocab {
                            return Err(model_err(format!(
                                "token {id} (type {tt}) is outside the vocabulary of {} (types {})",
                                self.vocab, self.type_vocab
                            )));
                        }
                        let row = &mut x[(start + pos) * h..(start + pos + 1) * h];
                        let word = &self.word[id * h..(id + 1) * h];
                        let place = &self.position[pos * h..(pos + 1) * h];
                        let kind = &self.token_type[tt * h..(tt + 1) * h];
                        for (((o, a), b), c) in row.iter_mut().zip(word).zip(place).zip(kind) {
                            *o = a + b + c;
                        }
                        layer_norm(row, &self.norm, self.eps);
                    }
                }
                Ok(())
            },
        )?;

        let d = h / self.heads;
        let scale = 1.0 / (d as f32).sqrt();
        for layer in &self.layers {
            // Fused query/key/value projection.
            matmul(
                MatMut::rows(&mut s.qkv, total, 3 * h),
                Mat::rows(&s.x, total, h),
                Mat::rows(&layer.qkv_w, h, 3 * h),
                1.0,
                false,
                par,
            )?;
            simd(
                #[inline(always)]
                || add_bias_rows(&mut s.qkv, &layer.qkv_b),
            );
            // Attention, per text and head, on that text's rows only.
            for &(start, n) in &spans {
                s.scores.resize(n * n, 0.0);
                let block = &s.qkv[start * 3 * h..(start + n) * 3 * h];
                for head in 0..self.heads {
                    let q = block.get(head * d..).unwrap_or_default();
                    let k = block.get(h + head * d..).unwrap_or_default();
                    let v = block.get(2 * h + head * d..).unwrap_or_default();
                    // scores = scale * q k^T: k read transposed through its strides.
                    matmul(
                        MatMut::rows(&mut s.scores, n, n),
                        Mat::strided(q, n, d, 3 * h, 1),
                        Mat::strided(k, d, n, 1, 3 * h),
                        scale,
                        false,
                        gemm::Parallelism::None,
                    )?;
                    simd(
                        #[inline(always)]
                        || s.scores.chunks_exact_mut(n).for_each(softmax),
                    );
                    let ctx = s.ctx.get_mut(start * h + head * d..).unwrap_or_default();
                    matmul(
                        MatMut::strided(ctx, n, d, h),
                        Mat::rows(&s.scores, n, n),
                        Mat::strided(v, n, d, 3 * h, 1),
                        1.0,
                        false,
                        gemm::Parallelism::None,
                    )?;
                }
            }
            // Output projection added onto the residual, then bias and layer norm.
            matmul(
                MatMut::rows(&mut s.x, total, h),
                Mat::rows(&s.ctx, total, h),
                Mat::rows(&layer.out_w, h, h),
                1.0,
                true,
                par,
            )?;
            simd(
                #[inline(always)]
                || bias_and_norm_rows(&mut s.x, &layer.out_b, &layer.norm1, self.eps),
            );
            // Feed-forward: up, bias + GELU, down onto the residual, bias + layer norm.
            matmul(
                MatMut::rows(&mut s.up, total, self.inter),
                Mat::rows(&s.x, total, h),
                Mat::rows(&layer.up_w, h, self.inter),
                1.0,
                false,
                par,
            )?;
            simd(
                #[inline(always)]
                || {
                    for row in s.up.chunks_exact_mut(self.inter) {
                        for (o, b) in row.iter_mut().zip(&layer.up_b) {
                            *o = gelu(*o + b);
                        }
                    }
                },
            );
            matmul(
                MatMut::rows(&mut s.x, total, h),
                Mat::rows(&s.up, total, self.inter),
                Mat::rows(&layer.down_w, self.inter, h),
                1.0,
                true,
                par,
            )?;
            simd(
                #[inline(always)]
                || bias_and_norm_rows(&mut s.x, &layer.down_b, &layer.norm2, self.eps),
            );
        }

        // Mean pooling over each text's tokens, then L2 normalization.
        let mut out = Vec::with_capacity(spans.len());
        for &(start, n) in &spans {
            let mut mean = vec![0.0f32; h];
            for row in s.x[start * h..(start + n) * h].chunks_exact(h) {
                for (m, x) in mean.iter_mut().zip(row) {
                    *m += x;
                }
            }
            let inv = 1.0 / n as f32;
            mean.iter_mut().for_each(|m| *m *= inv);
            let norm = mean.iter().map(|m| m * m).sum::<f32>().sqrt().max(1e-12);
            mean.iter_mut().for_each(|m| *m /= norm);
            out.push(mean);
        }
        Ok(out)
    }
}

/// Work buffers of one forward pass, kept per thread and grown as needed.
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    up: Vec<f32>,
    scores: Vec<f32>,
}

impl Scratch {
    fn resize(&mut self, tokens: usize, hidden: usize, inter: usize) {
        self.x.resize(tokens * hidden, 0.0);
        self.qkv.resize(tokens * 3 * hidden, 0.0);
        self.ctx.resize(tokens * hidden, 0.0);
        self.up.resize(tokens * inter, 0.0);
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// A read-only matrix view: `rows x cols`, element `(r, c)` at `r * rs + c * cs`.
#[derive(Clone, Copy)]
struct Mat<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    rs: usize,
    cs: usize,
}

impl<'a> Mat<'a> {
    fn rows(data: &'a [f32], rows: usize, cols: usize) -> Self {
        Self::strided(data, rows, cols, cols, 1)
    }

    fn strided(data: &'a [f32], rows: usize, cols: usize, rs: usize, cs: usize) -> Self {
        Self {
            data,
            rows,
            cols,
            rs,
            cs,
        }
    }
}

/// A writable matrix view with unit column stride.
struct MatMut<'a> {
    data: &'a mut [f32],
    rows: usize,
    cols: usize,
    rs: usize,
}

impl<'a> MatMut<'a> {
    fn rows(data: &'a mut [f32], rows: usize, cols: usize) -> Self {
        Self::strided(data, rows, cols, cols)
    }

    fn strided(data: &'a mut [f32], rows: usize, cols: usize, rs: usize) -> Self {
        Self {
            data,
            rows,
            cols,
            rs,
        }
    }
}

/// The index one past the last element a view reaches (0 for an empty view).
fn reach(rows: usize, cols: usize, rs: usize, cs: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (rows - 1) * rs + (cols - 1) * cs + 1
    }
}

/// `dst = scale * a b` (or `dst += scale * a b` when `accumulate`), after checking that every
/// view's shape agrees and stays inside its slice.
#[allow(unsafe_code)]
fn matmul(
    dst: MatMut<'_>,
    a: Mat<'_>,
    b: Mat<'_>,
    scale: f32,
    accumulate: bool,
    par: gemm::Parallelism,
) -> Result<()> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k || dst.rows != m || dst.cols != n {
        return Err(model_err(format!(
            "matrix shapes disagree: {m}x{k} times {}x{n} into {}x{}",
            b.rows, dst.rows, dst.cols
        )));
    }
    if reach(m, k, a.rs, a.cs) > a.data.len()
        || reach(k, n, b.rs, b.cs) > b.data.len()
        || reach(m, n, dst.rs, 1) > dst.data.len()
    {
        return Err(model_err(format!(
            "a {m}x{k} times {k}x{n} product reaches past its buffers"
        )));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let stride = |s: usize| isize::try_from(s).map_err(|_| model_err("stride overflow"));
    let (a_rs, a_cs, b_rs, b_cs, d_rs) = (
        stride(a.rs)?,
        stride(a.cs)?,
        stride(b.rs)?,
        stride(b.cs)?,
        stride(dst.rs)?,
    );
    // SAFETY: the checks above keep every element the product reads (`a`, `b`) or writes
    // (`dst`) inside its slice; `dst` is borrowed mutably, so it overlaps neither input; the
    // type is f32, which `gemm` supports.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.data.as_mut_ptr(),
            1,
            d_rs,
            accumulate,
            a.data.as_ptr(),
            a_cs,
            a_rs,
            b.data.as_ptr(),
            b_cs,
            b_rs,
            1.0,
            scale,
            false,
            false,
            false,
            par,
        );
    }
    Ok(())
}

/// Runs `f` inside `pulp`'s run-time dispatch: compiled once per SIMD level (AVX-512, AVX2,
/// ...) and run at the best the CPU has. What `f` calls must be `#[inline(always)]` to be
/// compiled at that level too. Measured on the 2-core AVX-512 Xeon: the element-wise passes
/// were a fifth of a query's embedding time as SSE2 code.
#[inline(always)]
fn simd<R>(f: impl FnOnce() -> R) -> R {
    struct Run<F>(F);
    impl<R, F: FnOnce() -> R> pulp::WithSimd for Run<F> {
        type Output = R;
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _simd: S) -> R {
            (self.0)()
        }
    }
    pulp::Arch::new().dispatch(Run(f))
}

#[inline(always)]
fn add_bias_rows(m: &mut [f32], bias: &[f32]) {
    for row in m.chunks_exact_mut(bias.len().max(1)) {
        for (o, b) in row.iter_mut().zip(bias) {
            *o += b;
        }
    }
}

/// Adds `bias` to every row of `m`, then layer-norms the row (after each residual sum).
#[inline(always)]
fn bias_and_norm_rows(m: &mut [f32], bias: &[f32], norm: &Norm, eps: f32) {
    for row in m.chunks_exact_mut(bias.len().max(1)) {
        for (o, b) in row.iter_mut().zip(bias) {
            *o += b;
        }
        layer_norm(row, norm, eps);
    }
}

/// In-place layer norm of one row (two passes: mean, then variance).
#[inline(always)]
fn layer_norm(row: &mut [f32], norm: &Norm, eps: f32) {
    let n = row.len().max(1) as f32;
    let mean = row.iter().sum::<f32>() / n;
    let var = row.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((x, g), b) in row.iter_mut().zip(&norm.gamma).zip(&norm.beta) {
        *x = (*x - mean) * inv * g + b;
    }
}

/// In-place softmax of one row.
#[inline(always)]
fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0f32;
    for x in row.iter_mut() {
        *x = exp(*x - max);
        sum += *x;
    }
    let inv = 1.0 / sum;
    row.iter_mut().for_each(|x| *x *= inv);
}

/// `e^x` for f32 without a libm call, so loops over it vectorize: `2^(x log2 e)` split into an
/// integer power (put in the exponent bits) and `2^f`, `f` in [-0.5, 0.5], by its degree-6
/// Taylor polynomial (relative error below 2e-7). The integer power is read from the bits of
/// `y + 1.5 * 2^23` rather than by a float-to-int cast, whose saturating semantics keep the
/// loop scalar.
#[inline(always)]
fn exp(x: f32) -> f32 {
    const ROUND: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer.
    const ROUND_BITS: i32 = 0x4b40_0000; // ROUND's bits: the integer sits in the low bits.
    let y = x.clamp(-87.0, 88.0) * std::f32::consts::LOG2_E;
    let shifted = y + ROUND;
    let r = shifted - ROUND;
    let power = (shifted.to_bits() as i32).wrapping_sub(ROUND_BITS);
    let f = y - r;
    let p = 1.0
        + f * (std::f32::consts::LN_2
            + f * (0.240_226_5
                + f * (0.055_504_11
                    + f * (0.009_618_129 + f * (0.001_333_355_8 + f * 0.000_154_035_3)))));
    f32::from_bits(p.to_bits().wrapping_add((power << 23) as u32))
}

/// `erf(x)` by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// GELU with the exact (erf) form, as BERT's `gelu` activation.
#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_accurate_over_the_range_softmax_and_gelu_use() {
        let mut worst = 0.0f64;
        let mut x = -80.0f32;
        while x < 80.0 {
            let exact = f64::from(x).exp();
            let rel = ((f64::from(exp(x)) - exact) / exact).abs();
            worst = worst.max(rel);
            x += 0.013;
        }
        // Rounding `x log2 e` to f32 costs up to |x log2 e| / 2^24 relative error (7e-6 at
        // |x| = 80, 9e-7 at 10); the polynomial adds 2e-7.
        assert!(worst < 1e-5, "worst relative error {worst}");
    }

    #[test]
    fn erf_is_accurate() {
        let mut worst = 0.0f64;
        let mut x = -6.0f32;
        while x < 6.0 {
            let exact = libm_erf(f64::from(x));
            worst = worst.max((f64::from(erf(x)) - exact).abs());
            x += 0.001;
        }
        // Abramowitz and Stegun 7.1.26 is good to 1.5e-7; f32 arithmetic and `exp` add the rest.
        assert!(worst < 1e-6, "worst absolute error {worst}");
    }

    /// erf in f64, for the test: its Taylor series below |x| = 3.5 (past it the terms grow to
    /// e^(x^2) and cancel), above it 1 - erfc(|x|) by erfc's asymptotic series.
    fn libm_erf(x: f64) -> f64 {
        let a = x.abs();
        if a >= 3.5 {
            let mut term = 1.0;
            let mut series = 1.0;
            for n in 1..6 {
                term *= -((2 * n - 1) as f64) / (2.0 * a * a);
                series += term;
            }
            let erfc = (-a * a).exp() / (a * std::f64::consts::PI.sqrt()) * series;
            return (1.0 - erfc).copysign(x);
        }
        // Series: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
        let mut term = x;
        let mut sum = x;
        for n in 1..200 {
            term *= -x * x / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    #[test]
    fn matmul_matches_the_plain_product_with_strides_and_accumulation() {
        let (m, k, n) = (5, 7, 3);
        let a: Vec<f32> = (0..m * k).map(|i| (i as f32 * 0.37).sin()).collect();
        // b stored transposed (n x k) and read through strides.
        let bt: Vec<f32> = (0..n * k).map(|i| (i as f32 * 0.11).cos()).collect();
        let mut dst = vec![1.0f32; m * n];
        matmul(
            MatMut::rows(&mut dst, m, n),
            Mat::rows(&a, m, k),
            Mat::strided(&bt, k, n, 1, k),
            0.5,
            true,
            gemm::Parallelism::None,
        )
        .unwrap();
        for i in 0..m {
            for j in 0..n {
                let want: f32 =
                    1.0 + 0.5 * (0..k).map(|p| a[i * k + p] * bt[j * k + p]).sum::<f32>();
                assert!((dst[i * n + j] - want).abs() < 1e-5, "({i},{j})");
            }
        }
    }

    #[test]
    fn a_product_past_its_buffer_is_an_error_not_a_crash() {
        let a = vec![0.0f32; 4];
        let b = vec![0.0f32; 4];
        let mut d = vec![0.0f32; 4];
        let err = matmul(
            MatMut::rows(&mut d, 2, 2),
            Mat::rows(&a, 2, 3),
            Mat::rows(&b, 3, 2),
            1.0,
            false,
            gemm::Parallelism::None,
        );
        assert!(err.is_err());
    }
}
