// The matrix product every linear layer and attention projection runs on, over operands read in
// place through two strides, so one kernel serves x·wᵀ + b, dy·w and dyᵀ·x without transposed
// copies. A `_ref` loop (the reference, float and double) and a float32 `_simd` version.
//
// Legend: M/K/N matrix sizes. An operand is a MatrixOf: element (r, c) at data[r·rows + c·cols]
// (row-major (R, C): {data, C, 1}; its transpose: {data, 1, C}).
//
// Both versions compute every element in the same order,
//   s = bias[j] (0 without bias);  s += a(i, p)·b(p, j) for p = 0, 1, …, K − 1;
//   c(i, j) = accumulate ? c(i, j) + s : s,
// one rounding per multiply and per add (no fused multiply-add: WASM SIMD128 has none, and the
// native build is compiled without contraction), so _simd equals _ref bit for bit, and an
// element's value does not depend on M, on N or on which block of a larger product it was
// computed in. That is what lets the model split a product into tiles over threads and still get
// the same bits for every thread count, and batch one sequence or many with the same result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/half.h"

namespace attn::kernels {

// The micro-kernel's block (detail/micro_kernel.h's kMr × kNr): 4 rows of c by 8 columns. A
// product cut into tiles of whole blocks (the model's tile_product) runs every tile on whole
// micro-kernel calls.
constexpr int kMicroRows = 4;
constexpr int kMicroColumns = 8;

template <typename Real>
struct MatrixOf {
  const Real* data;
  std::ptrdiff_t rows;  // stride between rows
  std::ptrdiff_t cols;  // stride between columns
};

// c (M, N), row stride ldc:  c = [c +] (bias + a (M, K) · b (K, N)); bias (N) or null.
// c must not overlap a, b or bias.
template <typename Real>
void gemm_ref(Real* c, std::ptrdiff_t ldc, MatrixOf<Real> a, MatrixOf<Real> b, const Real* bias, bool accumulate, int M,
              int K, int N);
void gemm_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, MatrixOf<float> b, const float* bias, bool accumulate,
               int M, int K, int N);

// The same product with b's elements IEEE halves (kernels/half.h: weights kept as F16), each
// converted to float32 exactly as it is read — by the _simd version while it packs B's panels
// (the pack is a copy already, so the conversion rides on it). Both equal gemm_ref / gemm_simd
// over b converted to float32 first, bit for bit, for finite halves (a model's F16 weights are:
// the loader refuses the others; an inf or NaN half reads as a finite value here).
void gemm_f16_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, MatrixOf<std::uint16_t> b, const float* bias,
                  bool accumulate, int M, int K, int N);
void gemm_f16_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, MatrixOf<std::uint16_t> b, const float* bias,
                   bool accumulate, int M, int K, int N);

// One row (M = 1), the shape of generating a token: c (1, N) = [c +] (bias + a (1, K) · b). With
// b's columns contiguous (b.rows == 1: a weight (N, K) read as wᵀ) nothing is packed — each 4 × 4
// block of b is transposed in registers as it is read, which writes and reads every weight once
// less than packing it for one row's use; with b row-major (b.cols == 1: a weight kept (in, out))
// each step broadcasts a(p) against b's row p, no transposes; other layouts go to gemm_simd. Equal to gemm_ref bit
// for bit (the same per-element order). Separate functions, not a case inside gemm_simd, so the
// element's small engine, which never runs one row against a weight, does not carry them.
void gemm_row_simd(float* c, MatrixOf<float> a, MatrixOf<float> b, const float* bias, bool accumulate, int K, int N);
void gemm_row_f16_simd(float* c, MatrixOf<float> a, MatrixOf<std::uint16_t> b, const float* bias, bool accumulate,
                       int K, int N);

// Panels: the layout a weight is kept in for products that stream it, one token at a time
// (an F16 model's linear weights and wte: model/gpt.h). b (K, N) — a linear layer's wᵀ, N
// outputs and K inputs — is cut into panels of kPanel = 32 columns (outputs), each panel's K rows
// back to back:
//
//   panel q            columns [32q, 32q + n_q), n_q = min(32, N − 32q) (only the last is narrower)
//   b(p, j)            at 32q·K + p·n_q + (j − 32q), q = j / 32          (panel_index)
//   size               K·N elements, no padding
//
// One row (gemm_panels_simd with M = 1) reads a panel from its first element to its last, its
// 32 sums in 8 registers for the whole K loop, each weight once, no transposes, and one stream
// of memory at a time: measured in WASM here, streaming GPT-2's LM head as F16 took 4.4 ms in
// panels of 32 against 6.9 ms in panels of 8 read 4 at a time (4 streams; the same instructions),
// where the weights stayed in the cache both took the same time. A product of many rows converts
// each 8 columns of a panel into the micro-kernel's B panel (detail/micro_kernel.h) with one
// straight pass. A view of columns j0 … (j0 a multiple of 32) is {data + j0·K}, with N counted
// from j0 (every panel but the last is full, so the widths agree).
template <typename Real>
struct PanelsOf {
  const Real* data;
};
constexpr int kPanel = 32;
inline std::size_t panel_index(int p, int j, int K, int N) {
  const int q0 = j - j % kPanel, n = N - q0 < kPanel ? N - q0 : kPanel;
  return static_cast<std::size_t>(q0) * K + static_cast<std::size_t>(p) * n + (j - q0);
}
// panels (K·N) = b (K, N) strided, in the panel layout.
template <typename Real>
void pack_panels(Real* panels, MatrixOf<Real> b, int K, int N) {
  for (int j = 0; j < N; ++j)
    for (int p = 0; p < K; ++p) panels[panel_index(p, j, K, N)] = b.data[p * b.rows + j * b.cols];
}

// c (M, N), row stride ldc:  c = [c +] (bias + a (M, K) · b (K, N)), b in panels, float32 or
// halves (converted exactly, as gemm_f16_*; finite halves for the _simd version). In gemm_ref's
// per-element order, so all of them equal gemm_ref over b unpacked (and converted), bit for bit.
// _ref: the plain loops. _simd: one row streams the panels (above); more rows run gemm_simd's
// packed micro-kernels, B's panels converted from these (a straight copy).
void gemm_panels_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<float> b, const float* bias,
                     bool accumulate, int M, int K, int N);
void gemm_panels_f16_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<std::uint16_t> b, const float* bias,
                         bool accumulate, int M, int K, int N);
void gemm_panels_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<float> b, const float* bias,
                      bool accumulate, int M, int K, int N);
void gemm_panels_f16_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<std::uint16_t> b, const float* bias,
                          bool accumulate, int M, int K, int N);
// The same over bfloat16 b (kernels/half.h's Bf16: weights kept as BF16), each value converted
// exactly (its bits shifted left by 16). One row reads each 8 weights with one 128-bit load and
// converts them with one op per 4 (simd::load_bf16_pairs: the even columns by a shift, the odd
// by a mask), summing even and odd columns apart and interleaving the 32 sums at the end: the
// same sums in the same order, so the same bits as gemm_ref over b converted.
void gemm_panels_bf16_ref(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<Bf16> b, const float* bias,
                          bool accumulate, int M, int K, int N);
void gemm_panels_bf16_simd(float* c, std::ptrdiff_t ldc, MatrixOf<float> a, PanelsOf<Bf16> b, const float* bias,
                           bool accumulate, int M, int K, int N);

}  // namespace attn::kernels
