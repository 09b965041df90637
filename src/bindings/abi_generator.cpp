// engine.torchGenerator: PyTorch's CPU generator (attn::TorchGenerator) by handle. A page makes a
// few (one per notebook view); engine.js frees them. draw runs one operation of the generator on
// the `input` tensor and the `shape`, with scalars a, b (low/high, mean/std, from/to, p, in/out
// features, words) and flag (nn.Linear's bias): values, and bias or keep.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "bindings/detail/call.h"
#include "core/torch_random.h"

namespace attn::abi::detail {

namespace {

std::map<int, std::unique_ptr<TorchGenerator>> generators;
int next_handle = 1;
constexpr std::size_t kMaxGenerators = 1024;

struct CreateIn {
  double seed = 0;  // torch.manual_seed(seed): an integer in [−2^53, 2^53]
};
struct CreateOut {
  int generator = 0;
};
void generator_create(const CreateIn& in, CreateOut& out) {
  if (generators.size() >= kMaxGenerators) {
    throw Error("seed: more than " + std::to_string(kMaxGenerators) + " generators are alive; dispose() some");
  }
  generators.emplace(next_handle, std::make_unique<TorchGenerator>(TorchGenerator::seed_from_number(in.seed)));
  out.generator = next_handle++;
}
constexpr Entry kCreateTable[] = {
    number("seed", ATTN_ABI_MEMBER(CreateIn, seed)),
    report_number("generator", ATTN_ABI_MEMBER(CreateOut, generator)),
};
const Registration kCreate{"generatorCreate", run<CreateIn, CreateOut, generator_create>, {kCreateTable}};

struct GeneratorIn {
  int generator = 0;
};
void generator_delete(const GeneratorIn& in, None&) { generators.erase(in.generator); }
constexpr Entry kDeleteTable[] = {
    integer("generator", ATTN_ABI_MEMBER(GeneratorIn, generator)),
};
const Registration kDelete{"generatorDelete", run<GeneratorIn, None, generator_delete>, {kDeleteTable}};

enum class DrawOp { kRand, kRandn, kRandint, kNormal, kUniform, kBernoulli, kLinear, kEmbedding, kDropout, kSkip };
const Enumeration& draw_names() {
  static const Enumeration names{
      "draw", {"rand", "randn", "randint", "normal", "uniform", "bernoulli", "linear", "embedding", "dropout", "skip"}};
  return names;
}

struct DrawIn {
  int generator = 0;
  DrawOp op = DrawOp::kRand;
  double a = 0, b = 0;
  bool flag = false;
  TensorView input;
  std::vector<int> shape;
};
struct DrawOut {
  Tensor values, bias, keep;
};

int count_of(double v, const char* name) {
  if (!(v >= 0 && v <= 1 << 24) || v != static_cast<int>(v)) {
    throw Error(std::string(name) + ": expected an integer in [0, 16777216], got " + std::to_string(v));
  }
  return static_cast<int>(v);
}

void draw(const DrawIn& in, DrawOut& out) {
  const auto found = generators.find(in.generator);
  if (found == generators.end()) throw Error("draw: this generator was disposed");
  TorchGenerator& g = *found->second;
  const std::vector<int>& shape = in.shape;
  const auto filled = [&](auto fill) {
    TensorView view{nullptr, shape};
    if (view.size() > TorchGenerator::kMaxElements) throw Error("shape: more than 2^24 elements");
    Tensor t;
    t.shape = shape;
    t.data.assign(static_cast<std::size_t>(view.shape.empty() ? 1 : view.size()), 0.0f);
    fill(t);
    return t;
  };
  switch (in.op) {
    case DrawOp::kRand: out.values = g.rand(shape); break;
    case DrawOp::kRandn: out.values = g.randn(shape); break;
    case DrawOp::kRandint: {
      // float32 results: the bounds stay within ±2^24, where every integer is exact.
      for (const auto& [v, name] : {std::pair<double, const char*>{in.a, "low"}, {in.b, "high"}}) {
        if (!(std::fabs(v) <= 1 << 24) || v != static_cast<double>(static_cast<long long>(v))) {
          throw Error(std::string(name) + ": expected an integer in [-16777216, 16777216], got " + std::to_string(v));
        }
      }
      const IntTensor t = g.randint(static_cast<std::int64_t>(in.a), static_cast<std::int64_t>(in.b), shape);
      out.values.shape = t.shape;
      out.values.data.assign(t.data.begin(), t.data.end());
      break;
    }
    case DrawOp::kNormal: out.values = filled([&](Tensor& t) { g.normal_(t, in.a, in.b); }); break;
    case DrawOp::kUniform: out.values = filled([&](Tensor& t) { g.uniform_(t, in.a, in.b); }); break;
    case DrawOp::kBernoulli: out.values = g.bernoulli(in.a, shape); break;
    case DrawOp::kLinear: {
      LinearParams p = g.linear_init(count_of(in.a, "inFeatures"), count_of(in.b, "outFeatures"), in.flag);
      out.values = std::move(p.weight);
      if (p.has_bias) out.bias = std::move(p.bias);
      break;
    }
    case DrawOp::kEmbedding: out.values = g.embedding_init(count_of(in.a, "count"), count_of(in.b, "dim")); break;
    case DrawOp::kDropout: {
      if (!in.input.given()) throw Error("input: required, the tensor dropout is applied to");
      DropoutDraw d = g.dropout(in.input, in.a, true);
      out.values = std::move(d.output);
      out.keep.shape = out.values.shape;
      out.keep.data.assign(d.keep.begin(), d.keep.end());
      break;
    }
    case DrawOp::kSkip:
      for (int n = count_of(in.a, "words"); n > 0; --n) g.random();
      break;
  }
}
constexpr Entry kDrawTable[] = {
    tensor("input", 1, 4, ATTN_ABI_MEMBER(DrawIn, input)),
    shape("shape", ATTN_ABI_MEMBER(DrawIn, shape)),
    integer("generator", ATTN_ABI_MEMBER(DrawIn, generator)),
    choice("op", ATTN_ABI_MEMBER(DrawIn, op), draw_names),
    number("a", ATTN_ABI_MEMBER(DrawIn, a)),
    number("b", ATTN_ABI_MEMBER(DrawIn, b)),
    boolean("flag", ATTN_ABI_MEMBER(DrawIn, flag)),
    result("values", ATTN_ABI_MEMBER(DrawOut, values)),
    result("bias", ATTN_ABI_MEMBER(DrawOut, bias)),
    result("keep", ATTN_ABI_MEMBER(DrawOut, keep)),
};
const Registration kDraw{"draw", run<DrawIn, DrawOut, draw>, {kDrawTable}};

}  // namespace

}  // namespace attn::abi::detail
