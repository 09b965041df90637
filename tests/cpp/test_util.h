// Shared test helpers: tolerance comparison of tensors (−∞ must match −∞), random tensors,
// access to Trace tensors by name, and a check that a call throws attn::Error naming an argument.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/attention.h"

namespace attn {
// gtest prints parameters with this (found by ADL) instead of raw bytes.
inline void PrintTo(Kernel kernel, std::ostream* os) { *os << kernel_name(kernel); }
}  // namespace attn

namespace attn_test {

// |got − want| ≤ abs + rel·|want| elementwise.
struct Tolerance {
  double abs;
  double rel;
};

inline std::string shape_string(const std::vector<int>& shape) {
  std::ostringstream s;
  s << "(";
  for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
  s << ")";
  return s.str();
}

// Compares two flat float arrays. An expected −∞ (a masked position) must be −∞ exactly, and
// +∞ likewise; NaN anywhere is a failure. Reports the worst element and the number of failures.
inline ::testing::AssertionResult ValuesNear(const std::vector<float>& got, const std::vector<float>& want,
                                             Tolerance tol, const std::string& what) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << what << ": size " << got.size() << ", want " << want.size();
  }
  size_t failures = 0, worst = 0;
  double worst_excess = -1.0;
  for (size_t i = 0; i < want.size(); ++i) {
    const float g = got[i], w = want[i];
    bool ok;
    double excess;
    if (std::isnan(g) || std::isnan(w)) {
      ok = false;
      excess = INFINITY;
    } else if (std::isinf(w) || std::isinf(g)) {
      ok = g == w;
      excess = ok ? 0.0 : INFINITY;
    } else {
      const double err = std::fabs(static_cast<double>(g) - w);
      const double allowed = tol.abs + tol.rel * std::fabs(static_cast<double>(w));
      ok = err <= allowed;
      excess = err - allowed;
    }
    if (!ok) ++failures;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = i;
    }
  }
  if (failures == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << failures << " of " << want.size() << " values outside abs "
                                       << tol.abs << " + rel " << tol.rel << "; worst at flat index " << worst
                                       << ": got " << got[worst] << ", want " << want[worst];
}

inline ::testing::AssertionResult TensorsNear(const attn::Tensor& got, const attn::Tensor& want, Tolerance tol,
                                              const std::string& what) {
  if (got.shape != want.shape) {
    return ::testing::AssertionFailure() << what << ": shape " << shape_string(got.shape) << ", want "
                                         << shape_string(want.shape);
  }
  return ValuesNear(got.data, want.data, tol, what);
}

// Largest |got − want| over finite pairs (for reporting measured errors).
inline double max_abs_diff(const attn::Tensor& got, const attn::Tensor& want) {
  double m = 0.0;
  for (size_t i = 0; i < want.data.size() && i < got.data.size(); ++i) {
    if (std::isfinite(got.data[i]) && std::isfinite(want.data[i])) {
      m = std::max(m, std::fabs(static_cast<double>(got.data[i]) - want.data[i]));
    }
  }
  return m;
}

// The Trace tensors by the names the fixtures use.
inline const std::vector<std::string>& trace_tensor_names() {
  static const std::vector<std::string> names = {
      "q", "k", "v", "scores", "scaled", "masked", "weights", "dropped", "head_outputs", "merged", "output"};
  return names;
}
inline const std::vector<std::string>& square_tensor_names() {  // the (B, H, T, T) ones
  static const std::vector<std::string> names = {"scores", "scaled", "masked", "weights", "dropped"};
  return names;
}

inline const attn::Tensor& trace_tensor(const attn::Trace& t, const std::string& name) {
  if (name == "q") return t.q;
  if (name == "k") return t.k;
  if (name == "v") return t.v;
  if (name == "scores") return t.scores;
  if (name == "scaled") return t.scaled;
  if (name == "masked") return t.masked;
  if (name == "weights") return t.weights;
  if (name == "dropped") return t.dropped;
  if (name == "head_outputs") return t.head_outputs;
  if (name == "merged") return t.merged;
  if (name == "output") return t.output;
  throw std::invalid_argument("no trace tensor " + name);
}

// A tensor that owns its data and hands out a view.
struct Owned {
  std::vector<int> shape;
  std::vector<float> data;
  attn::TensorView view() const {
    attn::TensorView v;
    v.data = data.data();
    v.shape = shape;
    return v;
  }
};

inline long long element_count(const std::vector<int>& shape) {
  long long n = 1;
  for (int d : shape) n *= d;
  return n;
}

// Uniform in [lo, hi): a seeded std::mt19937 and our own mapping, so the values are the same
// on every platform (std::uniform_real_distribution is implementation-defined).
inline float uniform(std::mt19937& rng, float lo, float hi) {
  const double u = static_cast<double>(rng()) / 4294967296.0;
  return static_cast<float>(lo + (hi - lo) * u);
}

inline int uniform_int(std::mt19937& rng, int lo, int hi) {  // inclusive
  return lo + static_cast<int>(rng() % static_cast<std::uint32_t>(hi - lo + 1));
}

inline Owned random_tensor(std::mt19937& rng, std::vector<int> shape, float lo = -1.0f, float hi = 1.0f) {
  Owned t;
  t.shape = std::move(shape);
  t.data.resize(static_cast<size_t>(element_count(t.shape)));
  for (float& v : t.data) v = uniform(rng, lo, hi);
  return t;
}

inline Owned filled(std::vector<int> shape, float value) {
  Owned t;
  t.shape = std::move(shape);
  t.data.assign(static_cast<size_t>(element_count(t.shape)), value);
  return t;
}

// Checks that fn throws attn::Error whose message contains every one of `must` and at least one
// of `any_of` (when given). Anything else thrown, or nothing, is a failure.
inline ::testing::AssertionResult ThrowsNaming(const std::function<void()>& fn, std::initializer_list<std::string> must,
                                               std::initializer_list<std::string> any_of = {}) {
  try {
    fn();
  } catch (const attn::Error& e) {
    const std::string message = e.what();
    for (const std::string& s : must) {
      if (message.find(s) == std::string::npos) {
        return ::testing::AssertionFailure() << "message \"" << message << "\" does not contain \"" << s << "\"";
      }
    }
    if (any_of.size() != 0) {
      bool found = false;
      for (const std::string& s : any_of) found = found || message.find(s) != std::string::npos;
      if (!found) {
        std::ostringstream alts;
        for (const std::string& s : any_of) alts << " \"" << s << "\"";
        return ::testing::AssertionFailure() << "message \"" << message << "\" contains none of" << alts.str();
      }
    }
    return ::testing::AssertionSuccess() << message;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw a non-attn::Error: " << e.what();
  } catch (...) {
    return ::testing::AssertionFailure() << "threw something that is not a std::exception";
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace attn_test
