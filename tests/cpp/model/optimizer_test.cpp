// AdamW, SGD, clip_grad_norm and nanoGPT's learning-rate schedule (src/model/optimizer.h) against
// torch 1.13 on the fixed quadratic of tests/fixtures/make_training_fixtures.py
// (training/optimizers.json): 20 steps each, our parameters carried from step to step (never
// reset to torch's), compared after every step.
//
// Tolerance, and where it comes from: each step rounds like torch's except that torch's AVX2
// kernels fuse x + alpha·y into one FMA (the moment updates, SGD's weight decay, momentum and
// update), so one step can differ by about an ulp of the moment or the parameter (|p| ≲ 4 here,
// ulp ≤ 4.8e-7). The quadratic's gradient map p − lr·c·(p − t) does not amplify a difference
// (lr·c ≤ 0.31), and Adam's update is bounded by lr, so after 20 steps the parameters stay
// within 20 such ulps: |ours − torch| ≤ 1e-5 + 1e-6·|torch|. The clip norm is accumulated in
// double here and in float by torch: relative 1e-6. The test prints what it measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "model/optimizer.h"
#include "test_util.h"
#include "training_fixtures.h"

namespace attn::model {
namespace {

using attn_test::json;
using attn_test::ThrowsNaming;

struct Problem {
  std::vector<std::string> names;
  std::vector<ParamSegment> segments;
  std::vector<float> init, target, curvature;
};

Problem load_problem(const json& p) {
  Problem out;
  out.names = p.at("names").get<std::vector<std::string>>();
  for (const std::string& name : out.names) {
    const attn::Tensor init = attn_test::json_tensor(p.at("init").at(name));
    const std::vector<float> t = attn_test::json_floats(p.at("target").at(name));
    const std::vector<float> c = attn_test::json_floats(p.at("curvature").at(name));
    out.segments.push_back({out.init.size(), init.data.size(), init.shape.size() >= 2});
    out.init.insert(out.init.end(), init.data.begin(), init.data.end());
    out.target.insert(out.target.end(), t.begin(), t.end());
    out.curvature.insert(out.curvature.end(), c.begin(), c.end());
  }
  return out;
}

LrSchedule schedule_from_json(const json& s) {
  LrSchedule out;
  out.decay_lr = s.value("decay_lr", true);
  out.learning_rate = s.at("learning_rate");
  out.min_lr = s.at("min_lr");
  out.warmup_iters = s.at("warmup_iters");
  out.lr_decay_iters = s.at("lr_decay_iters");
  return out;
}

TEST(OptimizersAgainstTorch, TwentyStepsOfAdamWAndSgdTrackTorch) {
  const json fixture = attn_test::load_training_json("optimizers");
  const Problem problem = load_problem(fixture.at("problem"));
  const attn_test::Tolerance tol{1e-5, 1e-6};
  int runs = 0;
  for (const json& run : fixture.at("runs")) {
    const std::string name = run.at("name");
    const std::string kind = run.at("optimizer");
    const json& hyper = run.at("hyper");
    const LrSchedule schedule = schedule_from_json(run.at("schedule"));
    const double clip = run.at("clip");
    const std::size_t total = problem.init.size();
    std::vector<float> params = problem.init, grads(total);
    AdamWOptions adam_options;
    SGDOptions sgd_options;
    if (kind == "adamw") {
      adam_options.beta1 = hyper.at("beta1");
      adam_options.beta2 = hyper.at("beta2");
      adam_options.eps = hyper.at("eps");
      adam_options.weight_decay = hyper.at("weight_decay");
    } else {
      sgd_options.momentum = hyper.at("momentum");
      sgd_options.dampening = hyper.at("dampening");
      sgd_options.nesterov = hyper.at("nesterov");
      sgd_options.weight_decay = hyper.at("weight_decay");
    }
    AdamW adamw(problem.segments, total, adam_options);
    SGD sgd(problem.segments, total, sgd_options);
    double worst = 0, worst_norm = 0;
    int bit_equal_steps = 0;
    int it = 0;
    for (const json& step : run.at("steps")) {
      const double lr = learning_rate_at(schedule, it);
      EXPECT_NEAR(lr, step.at("lr").get<double>(), 1e-15 * lr) << name << " it " << it;
      for (std::size_t i = 0; i < total; ++i) grads[i] = problem.curvature[i] * (params[i] - problem.target[i]);
      if (clip > 0) {
        const float norm = clip_grad_norm(grads.data(), problem.segments, clip);
        const float want = attn_test::json_floats(step.at("norm"))[0];
        EXPECT_NEAR(norm, want, 1e-6 * want) << name << " it " << it;
        worst_norm = std::max(worst_norm, std::fabs(double(norm) - want) / want);
      }
      if (kind == "adamw") {
        adamw.step(params.data(), grads.data(), lr);
      } else {
        sgd.step(params.data(), grads.data(), lr);
      }
      std::vector<float> want;
      for (const std::string& n : problem.names) {
        const std::vector<float> v = attn_test::json_floats(step.at("params").at(n));
        want.insert(want.end(), v.begin(), v.end());
      }
      EXPECT_TRUE(attn_test::ValuesNear(params, want, tol, name + " after step " + std::to_string(it)));
      bool equal = true;
      for (std::size_t i = 0; i < total; ++i) {
        worst = std::max(worst, std::fabs(double(params[i]) - want[i]));
        equal = equal && params[i] == want[i];
      }
      bit_equal_steps += equal;
      ++it;
    }
    EXPECT_EQ(it, 20);
    std::printf("  [torch] %-15s 20 steps: largest |ours - torch| = %.3g, %d of 20 steps bit-identical", name.c_str(),
                worst, bit_equal_steps);
    if (clip > 0) std::printf(", clip norm relative error ≤ %.3g", worst_norm);
    std::printf("\n");
    ++runs;
  }
  EXPECT_EQ(runs, 5);
}

TEST(LrSchedule, MatchesNanoGptsGetLr) {
  const json fixture = attn_test::load_training_json("optimizers");
  for (const json& s : fixture.at("schedules")) {
    const LrSchedule schedule = schedule_from_json(s.at("schedule"));
    const std::vector<long long> its = s.at("its").get<std::vector<long long>>();
    const std::vector<double> lrs = s.at("lrs").get<std::vector<double>>();
    for (std::size_t i = 0; i < its.size(); ++i) {
      // Same double arithmetic; libm's cos may differ by an ulp between platforms.
      EXPECT_NEAR(learning_rate_at(schedule, its[i]), lrs[i], 1e-15 * lrs[i]) << "it " << its[i];
    }
  }
}

TEST(LrSchedule, WarmupStartsAboveZeroAndThePastDecayIsTheFloor) {
  LrSchedule s;
  s.learning_rate = 1.0;
  s.min_lr = 0.1;
  s.warmup_iters = 9;
  s.lr_decay_iters = 20;
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 0), 0.1);  // (0 + 1) / (9 + 1)
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 8), 0.9);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 9), 1.0);   // decay_ratio 0
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 20), 0.1);  // decay_ratio 1
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 21), 0.1);
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 1000000), 0.1);
  s.decay_lr = false;
  EXPECT_DOUBLE_EQ(learning_rate_at(s, 3), 1.0);
}

TEST(LrSchedule, BadSchedulesAreNamed) {
  LrSchedule s;
  s.lr_decay_iters = s.warmup_iters;
  EXPECT_TRUE(ThrowsNaming([&] { validate(s); }, {"lr_decay_iters", "warmup_iters = 2000"}));
  s = LrSchedule{};
  s.learning_rate = -1;
  EXPECT_TRUE(ThrowsNaming([&] { validate(s); }, {"learning_rate", "-1"}));
  s = LrSchedule{};
  s.min_lr = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(ThrowsNaming([&] { validate(s); }, {"min_lr", "inf"}));
  s = LrSchedule{};
  s.warmup_iters = -5;
  EXPECT_TRUE(ThrowsNaming([&] { validate(s); }, {"warmup_iters", "-5"}));
  EXPECT_TRUE(ThrowsNaming([&] { learning_rate_at(LrSchedule{}, -1); }, {"it", "-1"}));
}

TEST(Optimizers, BadHyperparametersAreNamed) {
  const std::vector<ParamSegment> seg = {{0, 4, true}};
  AdamWOptions a;
  a.beta1 = 1.0;
  EXPECT_TRUE(ThrowsNaming([&] { AdamW(seg, 4, a); }, {"beta1", "got 1"}));
  a = AdamWOptions{};
  a.beta2 = -0.5;
  EXPECT_TRUE(ThrowsNaming([&] { AdamW(seg, 4, a); }, {"beta2"}));
  a = AdamWOptions{};
  a.eps = -1e-8;
  EXPECT_TRUE(ThrowsNaming([&] { AdamW(seg, 4, a); }, {"eps"}));
  a = AdamWOptions{};
  a.weight_decay = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(ThrowsNaming([&] { AdamW(seg, 4, a); }, {"weight_decay", "nan"}));
  EXPECT_TRUE(ThrowsNaming([&] { AdamW({{2, 4, false}}, 4); }, {"segments[0]", "outside the 4-float buffer"}));
  SGDOptions s;
  s.nesterov = true;
  EXPECT_TRUE(ThrowsNaming([&] { SGD(seg, 4, s); }, {"nesterov", "momentum > 0"}));
  s.momentum = 0.9;
  s.dampening = 0.1;
  EXPECT_TRUE(ThrowsNaming([&] { SGD(seg, 4, s); }, {"nesterov", "dampening = 0"}));
  AdamW ok(seg, 4);
  std::vector<float> p(4, 1.0f), g(4, 1.0f);
  EXPECT_TRUE(ThrowsNaming([&] { ok.step(p.data(), g.data(), -0.1); }, {"lr", "-0.1"}));
  EXPECT_EQ(ok.steps(), 0);  // a refused step counts nothing
}

TEST(Optimizers, WeightDecayOnlyTouchesDecaySegments) {
  // Zero gradients: AdamW's moments stay 0, so only the decoupled decay p·(1 − lr·wd) moves p.
  const std::vector<ParamSegment> seg = {{0, 2, true}, {2, 2, false}};
  AdamWOptions o;
  o.weight_decay = 0.5;
  AdamW adamw(seg, 4, o);
  std::vector<float> p = {1, 2, 3, 4}, g(4, 0.0f);
  adamw.step(p.data(), g.data(), 0.1);
  EXPECT_EQ(p, std::vector<float>({0.95f, 1.9f, 3, 4}));
  EXPECT_EQ(adamw.steps(), 1);
}

TEST(Optimizers, SetOptionsKeepsTheStateAsEditingATorchParamGroup) {
  const std::vector<ParamSegment> seg = {{0, 2, true}};
  AdamW adamw(seg, 2);
  std::vector<float> p = {1, 2}, g = {0.5f, -1};
  adamw.step(p.data(), g.data(), 0.1);
  const std::vector<float> m = adamw.exp_avg();
  AdamWOptions o;
  o.beta1 = 0.5;
  adamw.set_options(o);
  EXPECT_EQ(adamw.exp_avg(), m);
  EXPECT_EQ(adamw.steps(), 1);
  o.eps = -1;
  EXPECT_TRUE(ThrowsNaming([&] { adamw.set_options(o); }, {"eps"}));
  EXPECT_EQ(adamw.options().beta1, 0.5);  // a refused change changes nothing

  // SGD without momentum, then with: the buffer starts at that step's d (torch: buf = d.clone()).
  SGD sgd(seg, 2);
  std::vector<float> q = {1, 2};
  sgd.step(q.data(), g.data(), 0.1);
  EXPECT_TRUE(sgd.momentum_buffer().empty());
  SGDOptions s;
  s.momentum = 0.9;
  sgd.set_options(s);
  sgd.step(q.data(), g.data(), 0.1);
  EXPECT_EQ(sgd.momentum_buffer(), g);
  sgd.step(q.data(), g.data(), 0.1);
  EXPECT_EQ(sgd.momentum_buffer(), std::vector<float>({0.5f * 0.9f + 0.5f, -1 * 0.9f + -1}));
}

TEST(ClipGradNorm, ReturnsTheGlobalNormAndScalesOnlyAboveMax) {
  const std::vector<ParamSegment> seg = {{0, 2, true}, {2, 1, false}};
  std::vector<float> g = {3, 0, 4};  // norms 3 and 4: total 5
  EXPECT_EQ(clip_grad_norm(g.data(), seg, 10.0), 5.0f);
  EXPECT_EQ(g, std::vector<float>({3, 0, 4}));  // coef clamped at 1: unchanged
  const float total = clip_grad_norm(g.data(), seg, 1.0);
  EXPECT_EQ(total, 5.0f);
  const float coef = (1.0f / (5.0f + 1e-6f)) * 1.0f;
  EXPECT_EQ(g, std::vector<float>({3 * coef, 0, 4 * coef}));
  EXPECT_EQ(clip_grad_norm(g.data(), {}, 1.0), 0.0f);  // no gradients: 0, as torch
  std::vector<float> bad = {std::numeric_limits<float>::quiet_NaN(), 1};
  EXPECT_TRUE(std::isnan(clip_grad_norm(bad.data(), {{0, 2, true}}, 1.0)));  // returned, not hidden
}

}  // namespace
}  // namespace attn::model
