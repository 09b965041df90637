// Scalar reference kernels: the plain loops every faster version is checked against.
// Legend: T tokens, hk query/key head width, hv value head width, M/K/N matrix sizes.
#include <cmath>
#include <limits>

#include "kernels.h"

namespace attn::kernels {

namespace {
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
}

void matmul_ref(float* y, const float* x, const float* w, const float* bias, int M, int K, int N) {
  // y: (M, N), x: (M, K), w: (K, N), bias: (N) or null
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float sum = bias ? bias[j] : 0.0f;
      for (int p = 0; p < K; ++p) sum += x[i * K + p] * w[p * N + j];
      y[i * N + j] = sum;
    }
  }
}

void matmul_nt_ref(float* y, const float* x, const float* w, const float* bias, int M, int K, int N) {
  // y: (M, N), x: (M, K), w: (N, K) nn.Linear layout, bias: (N) or null
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float sum = bias ? bias[j] : 0.0f;
      for (int p = 0; p < K; ++p) sum += x[i * K + p] * w[j * K + p];
      y[i * N + j] = sum;
    }
  }
}

void qk_scores_ref(float* scores, const float* q, const float* k, int T, int hk, float alpha, bool causal) {
  // scores: (T, T), q: (T, hk), k: (T, hk)
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j) {
      if (causal && j > i) {
        scores[i * T + j] = kMinusInf;
        continue;
      }
      float dot = 0.0f;
      for (int c = 0; c < hk; ++c) dot += q[i * hk + c] * k[j * hk + c];
      scores[i * T + j] = alpha * dot;
    }
  }
}

void softmax_rows_ref(float* w, int rows, int cols, bool causal) {
  // w: (rows, cols), in place
  for (int i = 0; i < rows; ++i) {
    float* row = w + static_cast<long long>(i) * cols;
    const int live = causal ? (i + 1 < cols ? i + 1 : cols) : cols;
    // 1. row max
    float max = kMinusInf;
    for (int j = 0; j < live; ++j) max = row[j] > max ? row[j] : max;
    if (max == kMinusInf) {  // fully masked row
      for (int j = 0; j < cols; ++j) row[j] = 0.0f;
      continue;
    }
    // 2. exp and sum
    float sum = 0.0f;
    for (int j = 0; j < live; ++j) {
      row[j] = std::exp(row[j] - max);
      sum += row[j];
    }
    // 3. normalise
    const float inv = 1.0f / sum;
    for (int j = 0; j < live; ++j) row[j] *= inv;
    for (int j = live; j < cols; ++j) row[j] = 0.0f;
  }
}

void weighted_sum_ref(float* out, const float* w, const float* v, int T, int hv, bool causal) {
  // out: (T, hv), w: (T, T), v: (T, hv)
  for (int i = 0; i < T; ++i) {
    for (int c = 0; c < hv; ++c) out[i * hv + c] = 0.0f;
    const int live = causal ? i + 1 : T;
    for (int j = 0; j < live; ++j) {
      const float a = w[i * T + j];
      for (int c = 0; c < hv; ++c) out[i * hv + c] += a * v[j * hv + c];
    }
  }
}

void attention_tiled_ref(float* out, const float* q, const float* k, const float* v, const std::uint8_t* key_keep,
                         int T, int hk, int hv, float alpha, bool causal) {
  // out: (T, hv), q: (T, hk), k: (T, hk), v: (T, hv), key_keep: (T) or null.
  // One key at a time is the smallest tile; the running max m and sum l make it exact.
  for (int i = 0; i < T; ++i) {
    float m = kMinusInf, l = 0.0f;
    float* o = out + static_cast<long long>(i) * hv;
    for (int c = 0; c < hv; ++c) o[c] = 0.0f;
    const int live = causal ? i + 1 : T;
    for (int j = 0; j < live; ++j) {
      if (key_keep && !key_keep[j]) continue;
      float s = 0.0f;
      for (int c = 0; c < hk; ++c) s += q[i * hk + c] * k[j * hk + c];
      s *= alpha;
      const float m_new = s > m ? s : m;
      const float correction = std::exp(m - m_new);  // exp(−∞) = 0 on the first key
      const float p = std::exp(s - m_new);
      l = l * correction + p;
      for (int c = 0; c < hv; ++c) o[c] = o[c] * correction + p * v[j * hv + c];
      m = m_new;
    }
    if (l > 0.0f) {
      const float inv = 1.0f / l;
      for (int c = 0; c < hv; ++c) o[c] *= inv;
    }
  }
}

}  // namespace attn::kernels
