// The layers of layers.h: forward and backward as numbered passes.
// Legend: N rows, B batch, T tokens, C channels, I in features, O out features, V vocabulary.
#include "model/layers.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>

#include "core/attention.h"
#include "core/threads.h"
#include "kernels/gemm.h"
#include "kernels/half.h"
#include "kernels/kernels.h"
#include "kernels/train_kernels.h"

namespace attn::model {

using std::ptrdiff_t;

// ---------------------------------------------------------------------------------------------
// Linear

template <typename Real>
void linear_forward_ref(Real* y, const Real* x, const Real* w, const Real* b, int N, int I, int O) {
  // y: (N, O), x: (N, I), w: (O, I), b: (O) or null
  // 1. y[n, o] = b[o] + Σ_i x[n, i]·w[o, i]   (the loops of kernels::matmul_nt_ref, over Real)
  for (ptrdiff_t n = 0; n < N; ++n) {
    for (ptrdiff_t o = 0; o < O; ++o) {
      Real sum = b ? b[o] : Real(0);
      for (ptrdiff_t i = 0; i < I; ++i) sum += x[n * I + i] * w[o * I + i];
      y[n * O + o] = sum;
    }
  }
}

namespace {

// A product's output (rows × cols) cut into tiles for the thread pool: fixed by the shape alone,
// never by the thread count, so the bits are the same for every count (each output element is
// computed whole inside one tile; gemm.h: its value does not depend on the tile). Starting from
// the whole product, the longer side is halved (in units of the micro-kernel's 4 rows and
// col_unit columns: its 8, or a weight panel's 32 where the weight is kept in panels, so that a
// tile's columns are a view of whole panels) while there are fewer than kMaxTiles and a tile
// still has 2·kMinTileFlops.
struct Tiling {
  int rows = 1, cols = 1;  // of one tile
  int row_tiles = 1, col_tiles = 1;
  int count() const { return row_tiles * col_tiles; }
};
constexpr int kMaxTiles = 64;
constexpr double kMinTileFlops = 2.5e5;  // ~25 µs of one core: the per-task cost is ~0.1 µs

Tiling tile_product(int M, int N, int K, int col_unit = kernels::kMicroColumns) {
  constexpr int kRowUnit = kernels::kMicroRows;
  int row_units = (M + kRowUnit - 1) / kRowUnit,
      col_units = (N + col_unit - 1) / col_unit;  // tile size in units of kRowUnit rows, col_unit columns
  auto tiles = [&](int rows, int cols) { return ((M + rows - 1) / rows) * ((N + cols - 1) / cols); };
  for (;;) {
    const int rows = std::min(M, row_units * kRowUnit), cols = std::min(N, col_units * col_unit);
    const bool split_rows = rows >= cols ? row_units > 1 : col_units == 1;
    const int next_rows = split_rows ? std::min(M, (row_units + 1) / 2 * kRowUnit) : rows;
    const int next_cols = split_rows ? cols : std::min(N, (col_units + 1) / 2 * col_unit);
    const double next_flops = 2.0 * next_rows * next_cols * std::max(K, 1);
    if ((row_units == 1 && col_units == 1) || tiles(next_rows, next_cols) > kMaxTiles || next_flops < kMinTileFlops) {
      Tiling t;
      t.rows = rows, t.cols = cols;
      t.row_tiles = (M + rows - 1) / rows, t.col_tiles = (N + cols - 1) / cols;
      return t;
    }
    (split_rows ? row_units : col_units) = split_rows ? (row_units + 1) / 2 : (col_units + 1) / 2;
  }
}

}  // namespace

void linear_forward_simd(float* y, const float* x, const float* w, const float* b, int N, int I, int O) {
  // y: (N, O), x: (N, I), w: (O, I), b: (O) or null. y's tiles over the thread pool, each
  // kernels::gemm_simd of x's rows and w's rows read as wᵀ (equal to linear_forward_ref bit for bit).
  if (N <= 0 || O <= 0) return;
  const Tiling t = tile_product(N, O, I);
  parallel_for(t.count(), 2.0 * N * I * O, [&](int tile) {
    const int n0 = tile / t.col_tiles * t.rows, o0 = tile % t.col_tiles * t.cols;
    const int rows = std::min(t.rows, N - n0), cols = std::min(t.cols, O - o0);
    if (N == 1) {  // one token: the unpacked one-row product
      kernels::gemm_row_simd(y + o0, {x, I, 1}, {w + static_cast<ptrdiff_t>(o0) * I, 1, I}, b ? b + o0 : nullptr, false,
                             I, cols);
      return;
    }
    kernels::gemm_simd(y + static_cast<ptrdiff_t>(n0) * O + o0, O, {x + static_cast<ptrdiff_t>(n0) * I, I, 1},
                       {w + static_cast<ptrdiff_t>(o0) * I, 1, I}, b ? b + o0 : nullptr, false, rows, I, cols);
  });
}

void linear_forward_f16_ref(float* y, const float* x, const std::uint16_t* w, const float* b, int N, int I, int O,
                            bool panels) {
  // y: (N, O), x: (N, I), w: (O, I) halves, or wᵀ (I, O) in panels; b: (O) or null — linear_forward_ref's loops
  if (panels) return kernels::gemm_panels_f16_ref(y, O, {x, I, 1}, {w}, b, false, N, I, O);
  kernels::gemm_f16_ref(y, O, {x, I, 1}, {w, 1, I}, b, false, N, I, O);
}

namespace {

// y (N, O) = x (N, I) · wᵀ + b over w of elements W (float32, halves or bfloat16s), kept as wᵀ
// (I, O) in panels (panels) or as (O, I): linear_forward_simd's tiles, each kernels::gemm_panels[_f16|_bf16]_simd
// (one row: the panels streamed; more: copied or converted into the micro-kernel's panels) or
// kernels::gemm_f16_simd over (O, I). Float32 and bfloat16s come here only in panels
// (linear_forward_simd runs float32's (O, I) layout; bfloat16s are never kept so).
template <typename W>
void linear_forward_tiles(float* y, const float* x, const W* w, const float* b, int N, int I, int O, bool panels) {
  if (N <= 0 || O <= 0) return;
  const Tiling t = tile_product(N, O, I, panels ? kernels::kPanel : kernels::kMicroColumns);
  parallel_for(t.count(), 2.0 * N * I * O, [&](int tile) {
    const int n0 = tile / t.col_tiles * t.rows, o0 = tile % t.col_tiles * t.cols;
    const int rows = std::min(t.rows, N - n0), cols = std::min(t.cols, O - o0);
    float* yt = y + static_cast<ptrdiff_t>(n0) * O + o0;
    const kernels::MatrixOf<float> xt{x + static_cast<ptrdiff_t>(n0) * I, I, 1};
    // wᵀ's columns o0 …: a tile's first column is a multiple of kPanel (tile_product's units), so
    // a panel boundary, and its width a multiple of kPanel unless it reaches O (gemm.h's column view)
    const W* wt = w + static_cast<ptrdiff_t>(o0) * I;
    const float* bt = b ? b + o0 : nullptr;
    if constexpr (std::is_same_v<W, float>) {
      static_cast<void>(panels);  // always true: see above
      kernels::gemm_panels_simd(yt, O, xt, {wt}, bt, false, rows, I, cols);
    } else if constexpr (std::is_same_v<W, kernels::Bf16>) {
      static_cast<void>(panels);  // always true: bfloat16s are kept in panels only
      kernels::gemm_panels_bf16_simd(yt, O, xt, {wt}, bt, false, rows, I, cols);
    } else if (panels) {
      kernels::gemm_panels_f16_simd(yt, O, xt, {wt}, bt, false, rows, I, cols);
    } else {
      kernels::gemm_f16_simd(yt, O, xt, {wt, 1, I}, bt, false, rows, I, cols);
    }
  });
}

}  // namespace

void linear_forward_f16_simd(float* y, const float* x, const std::uint16_t* w, const float* b, int N, int I, int O,
                             bool panels) {
  linear_forward_tiles(y, x, w, b, N, I, O, panels);
}

void linear_forward_bf16_ref(float* y, const float* x, const kernels::Bf16* w, const float* b, int N, int I, int O) {
  // y: (N, O), x: (N, I), w: wᵀ (I, O) in panels, bfloat16s; b: (O) or null — linear_forward_ref's loops
  kernels::gemm_panels_bf16_ref(y, O, {x, I, 1}, {w}, b, false, N, I, O);
}

void linear_forward_bf16_simd(float* y, const float* x, const kernels::Bf16* w, const float* b, int N, int I, int O) {
  linear_forward_tiles(y, x, w, b, N, I, O, true);
}

void linear_forward_panels_ref(float* y, const float* x, const float* w, const float* b, int N, int I, int O) {
  // y: (N, O), x: (N, I), w: wᵀ (I, O) in panels; b: (O) or null — linear_forward_ref's loops
  kernels::gemm_panels_ref(y, O, {x, I, 1}, {w}, b, false, N, I, O);
}

void linear_forward_panels_simd(float* y, const float* x, const float* w, const float* b, int N, int I, int O) {
  linear_forward_tiles(y, x, w, b, N, I, O, true);
}

template <typename Real>
void linear_backward_ref(Real* dx, Real* dw, Real* db, const Real* dy, const Real* x, const Real* w, int N, int I,
                         int O) {
  // dx: (N, I) +=, dw: (O, I) +=, db: (O) +=; dy: (N, O), x: (N, I), w: (O, I)
  // Backward of the single forward pass y = x·wᵀ + b, one gradient per operand:
  // 1b. db[o] += Σ_n dy[n, o]
  if (db) {
    for (ptrdiff_t n = 0; n < N; ++n)
      for (ptrdiff_t o = 0; o < O; ++o) db[o] += dy[n * O + o];
  }
  // 1w. dw (O, I) += dyᵀ (O, N) · x (N, I)
  if (dw) kernels::matmul_tn_ref<Real>(dw, dy, x, O, N, I);
  // 1x. dx (N, I) += dy (N, O) · w (O, I)
  if (dx) kernels::matmul_acc_ref<Real>(dx, dy, w, N, O, I);
}

void linear_backward_simd(float* dx, float* dw, float* db, const float* dy, const float* x, const float* w, int N,
                          int I, int O) {
  // The passes of linear_backward_ref (and its bits) with the products as kernels::gemm_simd, and
  // dw's tiles and dx's in one loop over the thread pool: each tile owns its outputs, so no sum
  // crosses threads. The bias sum db[o] += Σ_n dy[n, o] goes with dw's tiles of the first column,
  // each over its own rows o, n in order as in the reference.
  const Tiling tw = dw ? tile_product(O, I, N) : Tiling{0, 0, 0, 0};
  const Tiling tx = dx ? tile_product(N, I, O) : Tiling{0, 0, 0, 0};
  const int dw_tiles = dw ? tw.count() : 0, dx_tiles = dx ? tx.count() : 0;
  if (db && !dw) {
    for (ptrdiff_t n = 0; n < N; ++n)
      for (ptrdiff_t o = 0; o < O; ++o) db[o] += dy[n * O + o];
  }
  const double flops = 2.0 * N * I * O * ((dw ? 1 : 0) + (dx ? 1 : 0));
  parallel_for(dw_tiles + dx_tiles, flops, [&](int tile) {
    if (tile < dw_tiles) {
      // 1w. dw (O, I) += dyᵀ (O, N) · x (N, I): rows o0…, columns i0… of dw
      const int o0 = tile / tw.col_tiles * tw.rows, i0 = tile % tw.col_tiles * tw.cols;
      const int rows = std::min(tw.rows, O - o0), cols = std::min(tw.cols, I - i0);
      kernels::gemm_simd(dw + static_cast<ptrdiff_t>(o0) * I + i0, I, {dy + o0, 1, O}, {x + i0, I, 1}, nullptr, true,
                         rows, N, cols);
      // 1b. db[o] += Σ_n dy[n, o] for this tile's rows
      if (db && i0 == 0) {
        for (ptrdiff_t n = 0; n < N; ++n)
          for (ptrdiff_t o = o0; o < o0 + rows; ++o) db[o] += dy[n * O + o];
      }
      return;
    }
    // 1x. dx (N, I) += dy (N, O) · w (O, I): rows n0…, columns i0… of dx
    tile -= dw_tiles;
    const int n0 = tile / tx.col_tiles * tx.rows, i0 = tile % tx.col_tiles * tx.cols;
    const int rows = std::min(tx.rows, N - n0), cols = std::min(tx.cols, I - i0);
    kernels::gemm_simd(dx + static_cast<ptrdiff_t>(n0) * I + i0, I, {dy + static_cast<ptrdiff_t>(n0) * O, O, 1},
                       {w + i0, I, 1}, nullptr, true, rows, O, cols);
  });
}

// ---------------------------------------------------------------------------------------------
// LayerNorm

template <typename Real>
void layernorm_forward_ref(Real* y, Real* mean, Real* rstd, const Real* x, const Real* w, const Real* b, int N, int C,
                           double epsilon) {
  // y: (N, C), mean: (N) or null, rstd: (N) or null; x: (N, C), w: (C), b: (C) or null
  const Real eps = static_cast<Real>(epsilon);
  for (ptrdiff_t n = 0; n < N; ++n) {
    const Real* xr = x + n * C;
    Real* yr = y + n * C;
    // 1. mean
    Real m = 0;
    for (ptrdiff_t c = 0; c < C; ++c) m += xr[c];
    m /= C;
    // 2. biased variance, rstd = 1/√(var + eps)
    Real v = 0;
    for (ptrdiff_t c = 0; c < C; ++c) v += (xr[c] - m) * (xr[c] - m);
    v /= C;
    const Real s = Real(1) / std::sqrt(v + eps);
    // 3. normalise, then 4. scale and shift (one loop; y may alias x)
    for (ptrdiff_t c = 0; c < C; ++c) {
      const Real xhat = (xr[c] - m) * s;
      yr[c] = xhat * w[c] + (b ? b[c] : Real(0));
    }
    if (mean) mean[n] = m;
    if (rstd) rstd[n] = s;
  }
}

template <typename Real>
void layernorm_backward_ref(Real* dx, Real* dw, Real* db, const Real* dy, const Real* x, const Real* w,
                            const Real* mean, const Real* rstd, int N, int C) {
  // dx: (N, C) +=, dw: (C) +=, db: (C) +=; dy: (N, C), x: (N, C), w: (C), mean: (N), rstd: (N)
  // The forward's passes in reverse, x̂ = (x − mean)·rstd recomputed from the saved statistics:
  for (ptrdiff_t n = 0; n < N; ++n) {
    const Real* xr = x + n * C;
    const Real* dyr = dy + n * C;
    const Real m = mean[n], s = rstd[n];
    // 4. scale and shift: db += dy, dw += dy·x̂ (sums over rows, in row order), dx̂ = dy·w
    if (dw || db) {
      for (ptrdiff_t c = 0; c < C; ++c) {
        if (db) db[c] += dyr[c];
        if (dw) dw[c] += dyr[c] * ((xr[c] - m) * s);
      }
    }
    if (!dx) continue;
    // 3, 2, 1. normalise, variance and mean together: x̂ depends on x directly and through mean
    //    and rstd, which gives dx = rstd · (dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)), with the two row
    //    means of dx̂.
    Real mean_dxhat = 0, mean_dxhat_xhat = 0;
    for (ptrdiff_t c = 0; c < C; ++c) {
      const Real xhat = (xr[c] - m) * s;
      const Real dxhat = dyr[c] * w[c];
      mean_dxhat += dxhat;
      mean_dxhat_xhat += dxhat * xhat;
    }
    mean_dxhat /= C;
    mean_dxhat_xhat /= C;
    Real* dxr = dx + n * C;
    for (ptrdiff_t c = 0; c < C; ++c) {
      const Real xhat = (xr[c] - m) * s;
      const Real dxhat = dyr[c] * w[c];
      dxr[c] += s * (dxhat - mean_dxhat - xhat * mean_dxhat_xhat);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Token + position embedding

template <typename Real>
void embedding_forward_ref(Real* x, const int* idx, const Real* wte, const Real* wpe, int B, int T, int C) {
  // x: (B, T, C); idx: (B, T); wte: (V, C); wpe: (≥ T, C)
  for (ptrdiff_t bt = 0; bt < static_cast<ptrdiff_t>(B) * T; ++bt) {
    const ptrdiff_t t = bt % T;
    const Real* tok = wte + static_cast<ptrdiff_t>(idx[bt]) * C;
    const Real* pos = wpe + t * C;
    // 1. gather the token's row and the position's row, and add them
    for (ptrdiff_t c = 0; c < C; ++c) x[bt * C + c] = tok[c] + pos[c];
  }
}

template <typename W>
void embedding_forward_panels(float* x, const int* idx, const W* wte, const W* wpe, int B, int T, int C, int V) {
  // x: (B, T, C); idx: (B, T); wte: wteᵀ (C, V) in panels; wpe: (≥ T, C); W float, halves or bfloat16s
  for (ptrdiff_t bt = 0; bt < static_cast<ptrdiff_t>(B) * T; ++bt) {
    const ptrdiff_t t = bt % T;
    const W* pos = wpe + t * C;
    // token idx's row is column idx of wteᵀ: C values at a stride of its panel's width
    for (int c = 0; c < C; ++c) {
      const float tok = kernels::weight_to_f32(wte[kernels::panel_index(c, idx[bt], C, V)]);
      x[bt * C + c] = tok + kernels::weight_to_f32(pos[c]);
    }
  }
}
template void embedding_forward_panels<float>(float*, const int*, const float*, const float*, int, int, int, int);
template void embedding_forward_panels<std::uint16_t>(float*, const int*, const std::uint16_t*, const std::uint16_t*,
                                                      int, int, int, int);
template void embedding_forward_panels<kernels::Bf16>(float*, const int*, const kernels::Bf16*, const kernels::Bf16*,
                                                      int, int, int, int);

template <typename Real>
void embedding_backward_ref(Real* dwte, Real* dwpe, const Real* dx, const int* idx, int B, int T, int C) {
  // dwte: (V, C) +=, dwpe: (≥ T, C) +=; dx: (B, T, C), idx: (B, T)
  for (ptrdiff_t bt = 0; bt < static_cast<ptrdiff_t>(B) * T; ++bt) {
    const ptrdiff_t t = bt % T;
    const Real* g = dx + bt * C;
    // 1 (reversed). the gather becomes a scatter-add: a token seen twice gets both rows
    if (dwte) {
      Real* tok = dwte + static_cast<ptrdiff_t>(idx[bt]) * C;
      for (ptrdiff_t c = 0; c < C; ++c) tok[c] += g[c];
    }
    if (dwpe) {
      Real* pos = dwpe + t * C;
      for (ptrdiff_t c = 0; c < C; ++c) pos[c] += g[c];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Residual

template <typename Real>
void residual_forward_ref(Real* y, const Real* a, const Real* b, long long n) {
  // y, a, b: (n)
  for (long long i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

template <typename Real>
void residual_backward_ref(Real* da, Real* db, const Real* dy, long long n) {
  // da, db: (n) +=; dy: (n) — the sum passes the gradient to both operands unchanged
  if (da)
    for (long long i = 0; i < n; ++i) da[i] += dy[i];
  if (db)
    for (long long i = 0; i < n; ++i) db[i] += dy[i];
}

// ---------------------------------------------------------------------------------------------
// Dropout

namespace {
// 1 / (1 − p) rounded as torch rounds it for this scalar type; 0 when p = 1.
template <typename Real>
Real dropout_scale(double p) {
  return p >= 1.0 ? Real(0) : Real(1) / static_cast<Real>(1.0 - p);
}
}  // namespace

template <typename Real>
void dropout_forward_ref(Real* y, const Real* x, const std::uint8_t* keep, double p, long long n) {
  // y: (n), x: (n), keep: (n) bytes
  const Real scale = dropout_scale<Real>(p);
  // 1. y = x · (keep · scale): torch multiplies the input by its scaled noise
  for (long long i = 0; i < n; ++i) y[i] = keep[i] ? x[i] * scale : Real(0);
}

template <typename Real>
void dropout_backward_ref(Real* dx, const Real* dy, const std::uint8_t* keep, double p, long long n) {
  // dx: (n) +=, dy: (n), keep: (n) bytes
  const Real scale = dropout_scale<Real>(p);
  // 1 (reversed). the same mask and scale applied to the gradient
  for (long long i = 0; i < n; ++i)
    if (keep[i]) dx[i] += dy[i] * scale;
}

// ---------------------------------------------------------------------------------------------
// Cross-entropy

template <typename Real>
Real cross_entropy_forward_ref(Real* probs, Real* losses, const Real* logits, const int* targets, int N, int V) {
  // probs: (N, V) (may alias logits), losses: (N) or null; logits: (N, V), targets: (N)
  double total = 0.0;  // the mean is summed in double: N can be large, and Real may be float
  int valid = 0;
  for (ptrdiff_t n = 0; n < N; ++n) {
    const Real* row = logits + n * V;
    Real* prow = probs + n * V;
    const int target = targets[n];
    // 1. row max, for a softmax that cannot overflow
    Real max = row[0];
    for (ptrdiff_t v = 1; v < V; ++v) max = row[v] > max ? row[v] : max;
    // 2. exp and sum; the target's logit is read before the row may be overwritten
    const Real target_logit = target == kIgnoreIndex ? Real(0) : row[target];
    Real sum = 0;
    for (ptrdiff_t v = 0; v < V; ++v) {
      prow[v] = std::exp(row[v] - max);
      sum += prow[v];
    }
    // 3. normalise: probs = softmax(row)
    const Real inv = Real(1) / sum;
    for (ptrdiff_t v = 0; v < V; ++v) prow[v] *= inv;
    // 4. loss = logsumexp − logit[target] = log(sum) − (logit[target] − max)
    Real loss = 0;
    if (target != kIgnoreIndex) {
      loss = std::log(sum) - (target_logit - max);
      total += static_cast<double>(loss);
      ++valid;
    }
    if (losses) losses[n] = loss;
  }
  // 5. mean over the rows that count; none counting gives 0 (torch: NaN)
  return valid == 0 ? Real(0) : static_cast<Real>(total / valid);
}

template <typename Real>
void cross_entropy_backward_ref(Real* dlogits, const Real* probs, const int* targets, Real dloss, int N, int V) {
  // dlogits: (N, V) +=; probs: (N, V), targets: (N)
  int valid = 0;
  for (ptrdiff_t n = 0; n < N; ++n) valid += targets[n] != kIgnoreIndex;
  if (valid == 0) return;
  // 5 (reversed). the mean spreads dloss evenly over the rows that count
  const Real scale = dloss / static_cast<Real>(valid);
  for (ptrdiff_t n = 0; n < N; ++n) {
    const int target = targets[n];
    if (target == kIgnoreIndex) continue;
    const Real* prow = probs + n * V;
    Real* drow = dlogits + n * V;
    // 4–1 (reversed). softmax and log-sum-exp fused: d loss_n / d logit_v = probs_v − [v = target]
    for (ptrdiff_t v = 0; v < V; ++v) drow[v] += scale * (prow[v] - (v == target ? Real(1) : Real(0)));
  }
}

// ---------------------------------------------------------------------------------------------
// Checks

void check_tokens(const int* idx, long long n, int V, const char* what) {
  for (long long i = 0; i < n; ++i) {
    if (idx[i] < 0 || idx[i] >= V) {
      throw Error(std::string(what) + "[" + std::to_string(i) + "]: " + std::to_string(idx[i]) +
                  " is not a token id; expected 0 ≤ id < vocab_size = " + std::to_string(V));
    }
  }
}

void check_targets(const int* targets, long long n, int V, const char* what) {
  for (long long i = 0; i < n; ++i) {
    if (targets[i] != kIgnoreIndex && (targets[i] < 0 || targets[i] >= V)) {
      throw Error(std::string(what) + "[" + std::to_string(i) + "]: " + std::to_string(targets[i]) +
                  " is not a target; expected 0 ≤ target < vocab_size = " + std::to_string(V) + " or -1 (ignored)");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Instantiations: float (the reference of the float path) and double (finite differences).

#define ATTN_MODEL_INSTANTIATE(Real)                                                                                  \
  template void linear_forward_ref<Real>(Real*, const Real*, const Real*, const Real*, int, int, int);                \
  template void linear_backward_ref<Real>(Real*, Real*, Real*, const Real*, const Real*, const Real*, int, int, int); \
  template void layernorm_forward_ref<Real>(Real*, Real*, Real*, const Real*, const Real*, const Real*, int, int,     \
                                            double);                                                                  \
  template void layernorm_backward_ref<Real>(Real*, Real*, Real*, const Real*, const Real*, const Real*, const Real*, \
                                             const Real*, int, int);                                                  \
  template void embedding_forward_ref<Real>(Real*, const int*, const Real*, const Real*, int, int, int);              \
  template void embedding_backward_ref<Real>(Real*, Real*, const Real*, const int*, int, int, int);                   \
  template void residual_forward_ref<Real>(Real*, const Real*, const Real*, long long);                               \
  template void residual_backward_ref<Real>(Real*, Real*, const Real*, long long);                                    \
  template void dropout_forward_ref<Real>(Real*, const Real*, const std::uint8_t*, double, long long);                \
  template void dropout_backward_ref<Real>(Real*, const Real*, const std::uint8_t*, double, long long);               \
  template Real cross_entropy_forward_ref<Real>(Real*, Real*, const Real*, const int*, int, int);                     \
  template void cross_entropy_backward_ref<Real>(Real*, const Real*, const int*, Real, int, int);

ATTN_MODEL_INSTANTIATE(float)
ATTN_MODEL_INSTANTIATE(double)
#undef ATTN_MODEL_INSTANTIATE

}  // namespace attn::model
