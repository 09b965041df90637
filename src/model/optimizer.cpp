// AdamW, SGD, gradient clipping and nanoGPT's learning-rate schedule (optimizer.h).
#include "model/optimizer.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/attention.h"
#include "core/messages.h"
#include "core/threads.h"

namespace attn::model {

namespace {

void check_segments(const std::vector<ParamSegment>& segments, std::size_t total) {
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const ParamSegment& s = segments[i];
    if (s.offset > total || s.size > total - s.offset) {
      throw Error("segments[" + std::to_string(i) + "]: [" + std::to_string(s.offset) + ", " +
                  std::to_string(s.offset) + " + " + std::to_string(s.size) + ") is outside the " +
                  std::to_string(total) + "-float buffer");
    }
  }
}

// Runs body(segment, begin, end) over every segment in chunks of at most kChunk elements,
// spread over the thread pool; chunks are fixed by the segments alone.
constexpr std::size_t kChunk = 1 << 14;
constexpr double kFlopsPerElement = 20;  // a step's multiply-adds, square root and division
template <typename Body>
void for_each_chunk(const std::vector<ParamSegment>& segments, const Body& body) {
  std::vector<std::pair<std::size_t, std::size_t>> chunks;  // (segment, first element)
  std::size_t total = 0;
  for (std::size_t k = 0; k < segments.size(); ++k) {
    for (std::size_t at = 0; at < segments[k].size; at += kChunk) chunks.emplace_back(k, at);
    total += segments[k].size;
  }
  parallel_for(static_cast<int>(chunks.size()), kFlopsPerElement * static_cast<double>(total), [&](int c) {
    const ParamSegment& s = segments[chunks[static_cast<std::size_t>(c)].first];
    const std::size_t begin = chunks[static_cast<std::size_t>(c)].second;
    body(s, begin, std::min(s.size, begin + kChunk));
  });
}

void check_lr(double lr) {
  if (!(lr >= 0.0) || !std::isfinite(lr))
    throw Error("lr: expected a finite learning rate ≥ 0, got " + number_string(lr));
}

}  // namespace

void validate(const AdamWOptions& o) {
  if (!(o.beta1 >= 0.0 && o.beta1 < 1.0)) throw Error("beta1: expected 0 ≤ beta1 < 1, got " + number_string(o.beta1));
  if (!(o.beta2 >= 0.0 && o.beta2 < 1.0)) throw Error("beta2: expected 0 ≤ beta2 < 1, got " + number_string(o.beta2));
  if (!(o.eps >= 0.0) || !std::isfinite(o.eps))
    throw Error("eps: expected a finite eps ≥ 0, got " + number_string(o.eps));
  if (!(o.weight_decay >= 0.0) || !std::isfinite(o.weight_decay)) {
    throw Error("weight_decay: expected a finite weight_decay ≥ 0, got " + number_string(o.weight_decay));
  }
}

void validate(const SGDOptions& o) {
  if (!(o.momentum >= 0.0) || !std::isfinite(o.momentum)) {
    throw Error("momentum: expected a finite momentum ≥ 0, got " + number_string(o.momentum));
  }
  if (!std::isfinite(o.dampening))
    throw Error("dampening: expected a finite number, got " + number_string(o.dampening));
  if (!(o.weight_decay >= 0.0) || !std::isfinite(o.weight_decay)) {
    throw Error("weight_decay: expected a finite weight_decay ≥ 0, got " + number_string(o.weight_decay));
  }
  if (o.nesterov && (o.momentum <= 0.0 || o.dampening != 0.0)) {
    throw Error("nesterov: requires momentum > 0 and dampening = 0 (as torch.optim.SGD), got momentum " +
                number_string(o.momentum) + ", dampening " + number_string(o.dampening));
  }
}

std::vector<ParamSegment> param_segments(const ParamTable& table) {
  std::vector<ParamSegment> out;
  for (const ParamEntry& e : table.entries()) out.push_back({e.offset, e.size, e.decay});
  return out;
}

// ---------------------------------------------------------------------------------------------
// AdamW

AdamW::AdamW(std::vector<ParamSegment> segments, std::size_t total, const AdamWOptions& options)
    : segments_(std::move(segments)), options_(options) {
  validate(options_);
  check_segments(segments_, total);
  m_.assign(total, 0.0f);
  v_.assign(total, 0.0f);
}

void AdamW::set_options(const AdamWOptions& options) {
  validate(options);
  options_ = options;
}

void AdamW::step(float* params, const float* grads, double lr) {
  check_lr(lr);
  const AdamWOptions& o = options_;
  ++step_;
  const double step = static_cast<double>(step_);
  const double bias_correction1 = 1 - std::pow(o.beta1, step);
  const double bias_correction2 = 1 - std::pow(o.beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  // The Python floats as the float32 kernels see them.
  const float beta1 = static_cast<float>(o.beta1), one_minus_beta1 = static_cast<float>(1 - o.beta1);
  const float beta2 = static_cast<float>(o.beta2), one_minus_beta2 = static_cast<float>(1 - o.beta2);
  const float bc2_sqrt = static_cast<float>(bias_correction2_sqrt);
  const float eps = static_cast<float>(o.eps);
  const float neg_step_size = static_cast<float>(-step_size);
  // Elementwise, so the segments go over the thread pool in chunks (threads.h): the same bits for
  // every thread count.
  for_each_chunk(segments_, [&](const ParamSegment& s, std::size_t begin, std::size_t end) {
    const float decay = static_cast<float>(1 - lr * (s.decay ? o.weight_decay : 0.0));
    float* __restrict p = params + s.offset;
    const float* __restrict g = grads + s.offset;
    float* __restrict m = m_.data() + s.offset;
    float* __restrict v = v_.data() + s.offset;
    for (std::size_t i = begin; i < end; ++i) {
      p[i] = p[i] * decay;
      m[i] = m[i] * beta1;
      m[i] = m[i] + one_minus_beta1 * g[i];
      v[i] = v[i] * beta2;
      v[i] = v[i] + one_minus_beta2 * g[i] * g[i];
      const float denom = std::sqrt(v[i]) / bc2_sqrt + eps;
      p[i] = p[i] + neg_step_size * m[i] / denom;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// SGD

SGD::SGD(std::vector<ParamSegment> segments, std::size_t total, const SGDOptions& options)
    : segments_(std::move(segments)), options_(options), total_(total) {
  validate(options_);
  check_segments(segments_, total);
  if (options_.momentum != 0.0) buf_.assign(total, 0.0f);
}

void SGD::set_options(const SGDOptions& options) {
  validate(options);
  options_ = options;
  if (options_.momentum != 0.0 && buf_.empty()) buf_.assign(total_, 0.0f);
}

void SGD::step(float* params, const float* grads, double lr) {
  check_lr(lr);
  const SGDOptions& o = options_;
  const bool use_buffer = o.momentum != 0.0;
  const bool first = buffer_empty_;
  if (use_buffer) buffer_empty_ = false;
  ++step_;
  const float momentum = static_cast<float>(o.momentum);
  const float one_minus_dampening = static_cast<float>(1 - o.dampening);
  const float neg_lr = static_cast<float>(-lr);
  for (const ParamSegment& s : segments_) {
    const double wd_double = s.decay ? o.weight_decay : 0.0;
    const float wd = static_cast<float>(wd_double);
    float* __restrict p = params + s.offset;
    const float* __restrict g = grads + s.offset;
    float* buf = use_buffer ? buf_.data() + s.offset : nullptr;
    for (std::size_t i = 0; i < s.size; ++i) {
      float d = g[i];
      if (wd_double != 0.0) d = d + wd * p[i];
      if (buf) {
        buf[i] = first ? d : buf[i] * momentum + one_minus_dampening * d;
        d = o.nesterov ? d + momentum * buf[i] : buf[i];
      }
      p[i] = p[i] + neg_lr * d;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Clipping

float clip_grad_norm(float* grads, const std::vector<ParamSegment>& segments, double max_norm) {
  if (segments.empty()) return 0.0f;  // torch returns tensor(0.) for no gradients
  // 1. per-tensor 2-norms, each a float32 like torch.norm(g); 2. the norm of those norms
  double total_squares = 0.0;
  for (const ParamSegment& s : segments) {
    double squares = 0.0;
    for (std::size_t i = 0; i < s.size; ++i) {
      const double g = grads[s.offset + i];
      squares += g * g;
    }
    const double norm = static_cast<float>(std::sqrt(squares));
    total_squares += norm * norm;
  }
  const float total = static_cast<float>(std::sqrt(total_squares));
  // 3. clip_coef = max_norm / (total + 1e-6), clamped at 1 (NaN stays NaN, as torch.clamp)
  float coef = (1.0f / (total + 1e-6f)) * static_cast<float>(max_norm);
  if (coef > 1.0f) coef = 1.0f;
  // 4. scale every gradient (by 1 as well: torch multiplies unconditionally)
  for (const ParamSegment& s : segments)
    for (std::size_t i = 0; i < s.size; ++i) grads[s.offset + i] *= coef;
  return total;
}

// ---------------------------------------------------------------------------------------------
// Learning rate

void validate(const LrSchedule& s) {
  if (!(s.learning_rate >= 0.0) || !std::isfinite(s.learning_rate)) {
    throw Error("learning_rate: expected a finite rate ≥ 0, got " + number_string(s.learning_rate));
  }
  if (!s.decay_lr) return;
  if (!(s.min_lr >= 0.0) || !std::isfinite(s.min_lr)) {
    throw Error("min_lr: expected a finite rate ≥ 0, got " + number_string(s.min_lr));
  }
  if (s.warmup_iters < 0) throw Error("warmup_iters: expected ≥ 0, got " + std::to_string(s.warmup_iters));
  if (s.lr_decay_iters <= s.warmup_iters) {
    throw Error("lr_decay_iters: expected more than warmup_iters = " + std::to_string(s.warmup_iters) + ", got " +
                std::to_string(s.lr_decay_iters) + " (nanoGPT's get_lr divides by their difference)");
  }
}

double learning_rate_at(const LrSchedule& s, long long it) {
  validate(s);
  if (it < 0) throw Error("it: expected an iteration ≥ 0, got " + std::to_string(it));
  if (!s.decay_lr) return s.learning_rate;
  // 1) linear warmup
  if (it < s.warmup_iters) {
    return s.learning_rate * static_cast<double>(it + 1) / static_cast<double>(s.warmup_iters + 1);
  }
  // 2) past the decay: the floor
  if (it > s.lr_decay_iters) return s.min_lr;
  // 3) cosine from learning_rate down to min_lr
  const double decay_ratio =
      static_cast<double>(it - s.warmup_iters) / static_cast<double>(s.lr_decay_iters - s.warmup_iters);
  const double pi = 3.14159265358979323846;  // math.pi
  const double coeff = 0.5 * (1.0 + std::cos(pi * decay_ratio));
  return s.min_lr + coeff * (s.learning_rate - s.min_lr);
}

}  // namespace attn::model
