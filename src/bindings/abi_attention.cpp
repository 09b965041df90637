// The attention calls (engine.attend, project, averaging, cosine, limits): the whole of the
// embeddable element's small engine (ATTN_ABI_EMBED_SOURCES in CMakeLists.txt).
#include <string>

#include "bindings/abi.h"
#include "bindings/detail/attention.h"
#include "bindings/detail/call.h"
#include "core/attention.h"

namespace attn::abi::detail {

const Enumeration& kernel_names() {
  static const Enumeration names = [] {
    Enumeration e{"kernel", {}};
    for (int k = 0; k <= static_cast<int>(Kernel::kAuto); ++k) e.values.push_back(kernel_name(static_cast<Kernel>(k)));
    return e;
  }();
  return names;
}

const Enumeration& scale_mode_names() {
  static const Enumeration names{"scaleMode", {"inverseSqrtHeadSize", "none", "factor"}};
  return names;
}

namespace {

// attend: every intermediate of the trace; the kernel that ran, the scale s it used, and whether
// x was (B, T, D).
void attend(const AttendIn& in, Trace& out) { out = attn::attend(in.inputs, in.options); }
constexpr Entry kAttendResults[] = {
    result("q", ATTN_ABI_MEMBER(Trace, q)),
    result("k", ATTN_ABI_MEMBER(Trace, k)),
    result("v", ATTN_ABI_MEMBER(Trace, v)),
    result("scores", ATTN_ABI_MEMBER(Trace, scores)),
    result("scaled", ATTN_ABI_MEMBER(Trace, scaled)),
    result("masked", ATTN_ABI_MEMBER(Trace, masked)),
    result("weights", ATTN_ABI_MEMBER(Trace, weights)),
    result("dropped", ATTN_ABI_MEMBER(Trace, dropped)),
    result("headOutputs", ATTN_ABI_MEMBER(Trace, head_outputs)),
    result("merged", ATTN_ABI_MEMBER(Trace, merged)),
    result("output", ATTN_ABI_MEMBER(Trace, output)),
    report_choice("kernel", ATTN_ABI_MEMBER(Trace, kernel), kernel_names),
    report_number("scale", ATTN_ABI_MEMBER(Trace, scale)),
    report_boolean("batched", ATTN_ABI_MEMBER(Trace, batched)),
};
const Registration kAttend{"attend", run<AttendIn, Trace, attend>, {kAttendArguments, kAttendResults}};

// project: the plain linear layer y = x·w + b.
struct ProjectIn {
  TensorView x, w, b;
};
struct ProjectOut {
  Tensor y;
  bool batched = false;
};
void project(const ProjectIn& in, ProjectOut& out) {
  out.y = linear(in.x, in.w, in.b);
  out.batched = in.x.shape.size() == 3;
}
constexpr Entry kProject[] = {
    tensor("x", 2, 3, ATTN_ABI_MEMBER(ProjectIn, x)),
    tensor("w", 2, 2, ATTN_ABI_MEMBER(ProjectIn, w)),
    tensor("b", 1, 1, ATTN_ABI_MEMBER(ProjectIn, b)),
    result("y", ATTN_ABI_MEMBER(ProjectOut, y)),
    report_boolean("batched", ATTN_ABI_MEMBER(ProjectOut, batched)),
};
const Registration kProjectCall{"project", run<ProjectIn, ProjectOut, project>, {kProject}};

// averaging: seed 002's causal averaging, three ways.
struct AveragingIn {
  TensorView x;
};
void averaging(const AveragingIn& in, AveragingTrace& out) { out = causal_average(in.x); }
constexpr Entry kAveraging[] = {
    tensor("x", 2, 3, ATTN_ABI_MEMBER(AveragingIn, x)),
    result("loop", ATTN_ABI_MEMBER(AveragingTrace, loop)),
    result("trilWeights", ATTN_ABI_MEMBER(AveragingTrace, tril_weights)),
    result("matmul", ATTN_ABI_MEMBER(AveragingTrace, matmul)),
    result("maskedZeros", ATTN_ABI_MEMBER(AveragingTrace, masked_zeros)),
    result("softmaxWeights", ATTN_ABI_MEMBER(AveragingTrace, softmax_weights)),
    result("softmax", ATTN_ABI_MEMBER(AveragingTrace, softmax)),
    report_boolean("batched", ATTN_ABI_MEMBER(AveragingTrace, batched)),
};
const Registration kAveragingCall{"averaging", run<AveragingIn, AveragingTrace, averaging>, {kAveraging}};

// cosine: of two equal-length vectors (0 when either is all zero).
struct CosineIn {
  TensorView a, b;
};
struct CosineOut {
  double similarity = 0;
};
void cosine(const CosineIn& in, CosineOut& out) {
  if (!in.a.given() || !in.b.given()) throw Error(std::string(in.a.given() ? "b" : "a") + ": required, a vector");
  if (in.b.shape[0] != in.a.shape[0]) {
    throw Error("b: expected length " + std::to_string(in.a.shape[0]) + " like a, got " +
                std::to_string(in.b.shape[0]));
  }
  out.similarity = cosine_similarity(in.a.data, in.b.data, in.a.shape[0]);
}
constexpr Entry kCosine[] = {
    tensor("a", 1, 1, ATTN_ABI_MEMBER(CosineIn, a)),
    tensor("b", 1, 1, ATTN_ABI_MEMBER(CosineIn, b)),
    report_number("similarity", ATTN_ABI_MEMBER(CosineOut, similarity)),
};
const Registration kCosineCall{"cosine", run<CosineIn, CosineOut, cosine>, {kCosine}};

// limits: attn::Limits, as engine.limits names them.
struct LimitsOut {
  double max_batch = Limits::kMaxBatch, max_tokens = Limits::kMaxTokens, max_width = Limits::kMaxWidth;
  double max_heads = Limits::kMaxHeads;
  double max_input_elements = static_cast<double>(Limits::kMaxInputElements);
  double max_score_elements = static_cast<double>(Limits::kMaxScoreElements);
  double max_trace_elements = static_cast<double>(Limits::kMaxTraceElements);
  double max_work = static_cast<double>(Limits::kMaxWork);
  double max_magnitude = Limits::kMaxMagnitude, max_alpha = Limits::kMaxAlpha;
};
void limits(const None&, LimitsOut&) {}
constexpr Entry kLimits[] = {
    report_number("maxBatch", ATTN_ABI_MEMBER(LimitsOut, max_batch)),
    report_number("maxTokens", ATTN_ABI_MEMBER(LimitsOut, max_tokens)),
    report_number("maxWidth", ATTN_ABI_MEMBER(LimitsOut, max_width)),
    report_number("maxHeads", ATTN_ABI_MEMBER(LimitsOut, max_heads)),
    report_number("maxInputElements", ATTN_ABI_MEMBER(LimitsOut, max_input_elements)),
    report_number("maxScoreElements", ATTN_ABI_MEMBER(LimitsOut, max_score_elements)),
    report_number("maxTraceElements", ATTN_ABI_MEMBER(LimitsOut, max_trace_elements)),
    report_number("maxWork", ATTN_ABI_MEMBER(LimitsOut, max_work)),
    report_number("maxMagnitude", ATTN_ABI_MEMBER(LimitsOut, max_magnitude)),
    report_number("maxAlpha", ATTN_ABI_MEMBER(LimitsOut, max_alpha)),
};
const Registration kLimitsCall{"limits", run<None, LimitsOut, limits>, {kLimits}};

}  // namespace

}  // namespace attn::abi::detail
