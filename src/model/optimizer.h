// Optimizers, gradient clipping and learning-rate schedules as nanoGPT's train.py uses them,
// matching PyTorch 1.13's CPU arithmetic (torch/optim/adamw.py and sgd.py, single-tensor path;
// torch/nn/utils/clip_grad.py), over the flat parameter and gradient buffers of params.h.
//
// Where torch turns a Python float into the tensor's float32 (every scalar of an in-place
// tensor op), this code rounds the same double to float at the same point, and the float ops run
// in torch's order. Torch's AVX2 build fuses x + a·y into one FMA (add_ with alpha, addcmul_);
// this code does not (WebAssembly has no FMA instruction), so a step can differ from torch's by
// an ulp of a moment or a parameter. Measured: with std::fma at exactly those points, 20 steps of
// SGD (plain, nesterov) and of unclipped AdamW are bit-identical to torch's; without, they agree
// within 1e-6 (tests/cpp/model/optimizer_test.cpp states the bound and prints what it measures).
#pragma once

#include <cstddef>
#include <vector>

#include "model/params.h"

namespace attn::model {

// One tensor of the flat buffers: elements [offset, offset + size), and whether weight decay
// applies to it (nanoGPT's configure_optimizers: tensors with dim ≥ 2, i.e. the matmul weights
// and embeddings; biases and LayerNorm weights get none).
struct ParamSegment {
  std::size_t offset = 0;
  std::size_t size = 0;
  bool decay = false;
};
std::vector<ParamSegment> param_segments(const ParamTable& table);

// torch.optim.AdamW(amsgrad=False, maximize=False). Defaults: nanoGPT's train.py (betas
// (0.9, 0.95), weight_decay 0.1) and torch's eps.
struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0.1;  // applied to segments with decay only
};

// One step for every segment, in torch 1.13's _single_tensor_adamw order (float32 tensors,
// Python-float scalars rounded to float where the op takes them):
//   step += 1
//   p  = p · float(1 − lr·wd)                                  decoupled weight decay first
//   m  = m · float(β1);   m = m + float(1 − β1) · g            exp_avg.mul_(β1).add_(g, alpha=1−β1)
//   v  = v · float(β2);   v = v + (float(1 − β2) · g) · g      exp_avg_sq.mul_(β2).addcmul_(g, g, value=1−β2)
//   bc1 = 1 − β1^step,  bc2 = 1 − β2^step,  step_size = lr / bc1   (double)
//   denom = √v / float(√bc2) + float(eps)
//   p  = p + (float(−step_size) · m) / denom                   addcdiv_(m, denom, value=−step_size)
// attn::Error naming the first option torch would reject (as the constructor below checks).
void validate(const AdamWOptions& options);

class AdamW {
 public:
  // Moments (exp_avg, exp_avg_sq) of `total` floats, zero, in the parameters' layout.
  // Throws attn::Error for options torch rejects (β outside [0, 1), eps or weight_decay < 0)
  // or a segment outside [0, total).
  AdamW(std::vector<ParamSegment> segments, std::size_t total, const AdamWOptions& options = {});

  // params, grads: `total` floats. lr: this step's learning rate (learning_rate_at()), ≥ 0.
  void step(float* params, const float* grads, double lr);

  // New hyperparameters for the next steps, the moments and step count kept (as editing a torch
  // param_group between steps). Checked as the constructor checks them.
  void set_options(const AdamWOptions& options);

  long long steps() const { return step_; }
  const std::vector<float>& exp_avg() const { return m_; }
  const std::vector<float>& exp_avg_sq() const { return v_; }
  const AdamWOptions& options() const { return options_; }

 private:
  std::vector<ParamSegment> segments_;
  AdamWOptions options_;
  std::vector<float> m_, v_;
  long long step_ = 0;
};

// torch.optim.SGD(momentum, dampening, weight_decay, nesterov, maximize=False).
struct SGDOptions {
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;  // applied to segments with decay only
  bool nesterov = false;      // needs momentum > 0 and dampening = 0, as torch requires
};

// One step for every segment, in torch 1.13's _single_tensor_sgd order:
//   d = g + float(wd) · p                                  (when wd ≠ 0)
//   momentum ≠ 0:  first step  buf = d
//                  later       buf = buf · float(μ) + float(1 − dampening) · d
//                  d = nesterov ? d + float(μ) · buf : buf
//   p = p + float(−lr) · d
// attn::Error naming the first option torch would reject (as the constructor below checks).
void validate(const SGDOptions& options);

class SGD {
 public:
  SGD(std::vector<ParamSegment> segments, std::size_t total, const SGDOptions& options = {});
  void step(float* params, const float* grads, double lr);

  // New hyperparameters for the next steps, the momentum buffer kept (as editing a torch
  // param_group): a momentum that becomes nonzero starts its buffer at the next step's d, as
  // torch does for a parameter without one.
  void set_options(const SGDOptions& options);

  long long steps() const { return step_; }
  const std::vector<float>& momentum_buffer() const { return buf_; }
  const SGDOptions& options() const { return options_; }

 private:
  std::vector<ParamSegment> segments_;
  SGDOptions options_;
  std::vector<float> buf_;
  std::size_t total_ = 0;
  bool buffer_empty_ = true;  // no step has filled buf_ yet: the next one sets buf = d
  long long step_ = 0;
};

// torch.nn.utils.clip_grad_norm_(params, max_norm) with norm_type 2: the global norm is the
// 2-norm of the per-tensor 2-norms (each rounded to float, as torch stacks float32 norms);
// every gradient is multiplied by clip_coef = min(1, max_norm / (total + 1e-6)), computed as
// torch does in float: (1 / (total + 1e-6f)) · float(max_norm) (Tensor.__rtruediv__ is
// reciprocal() · other). Returns the total norm before clipping. A non-finite norm is returned
// and scales the gradients as torch does (error_if_nonfinite=False): the caller decides.
// Sums of squares are accumulated in double (torch: float32 reductions), so the norm may differ
// from torch's in the last bits.
float clip_grad_norm(float* grads, const std::vector<ParamSegment>& segments, double max_norm);

// Learning rate by iteration, as nanoGPT's train.py: `learning_rate` when not decay_lr,
// else get_lr(it):
//   it < warmup_iters:       learning_rate · (it + 1) / (warmup_iters + 1)
//   it > lr_decay_iters:     min_lr
//   otherwise:               decay_ratio = (it − warmup_iters) / (lr_decay_iters − warmup_iters)
//                            coeff = 0.5 · (1 + cos(π · decay_ratio))
//                            min_lr + coeff · (learning_rate − min_lr)
// (the (it + 1) / (warmup_iters + 1) warmup is nanoGPT's since Dec 2024, so iteration 0 has a
// nonzero rate; it was it / warmup_iters before).
struct LrSchedule {
  bool decay_lr = true;  // false: constant learning_rate
  double learning_rate = 6e-4;
  double min_lr = 6e-5;
  long long warmup_iters = 2000;
  long long lr_decay_iters = 600000;
};
// attn::Error naming the field: rates finite and ≥ 0, warmup_iters ≥ 0, and (when decay_lr)
// lr_decay_iters > warmup_iters (nanoGPT divides by their difference).
void validate(const LrSchedule& schedule);
double learning_rate_at(const LrSchedule& schedule, long long it);

}  // namespace attn::model
