// attn::TorchGenerator against the bits PyTorch 1.13.1 drew: tests/fixtures/random/torch_random.json
// (written by tests/fixtures/make_torch_random.py, format documented there) holds streams of calls
// (every random call of the seeds in their order, then sizes around the 16-element normal switch,
// seeds, ranges, interleaving, long streams, module initialisation, bernoulli and dropout). Each
// stream is replayed on one generator and every value is compared bit for bit: there is no
// tolerance anywhere in this file except where the attention core recomputes dropout itself.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/attention.h"
#include "core/examples.h"
#include "core/torch_random.h"
#include "fixture_loader.h"
#include "test_util.h"

namespace {

using attn::TorchGenerator;
using attn_test::json;

const json& document() {
  static const json doc = [] {
    const std::string path = std::string(ATTN_FIXTURES_DIR) + "/random/torch_random.json";
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot open " + path);
    return json::parse(file);
  }();
  return doc;
}

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::vector<std::uint32_t> hex_words(const std::string& text) {
  std::vector<std::uint32_t> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) out.push_back(static_cast<std::uint32_t>(std::stoul(word, nullptr, 16)));
  return out;
}

std::vector<float> json_floats(const json& tensor) {
  std::vector<float> out;
  for (std::uint32_t w : hex_words(tensor.at("f32").get<std::string>())) out.push_back(float_of(w));
  return out;
}

// FNV-1a 64 over the little-endian bytes of each value, as the script hashes long tensors.
template <typename T>
std::string fnv1a64(const std::vector<T>& values) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const T& v : values) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));  // x86-64 and WASM are little-endian
    for (unsigned char b : bytes) h = (h ^ b) * 0x100000001b3ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

std::string hex(std::uint32_t w) {
  char buffer[9];
  std::snprintf(buffer, sizeof buffer, "%08x", w);
  return buffer;
}

// got equals the recorded tensor bit for bit (in full, or by count, hash, head and tail).
::testing::AssertionResult SameFloats(const std::vector<float>& got, const json& want) {
  if (want.contains("count")) {
    if (static_cast<long long>(got.size()) != want.at("count").get<long long>()) {
      return ::testing::AssertionFailure() << got.size() << " values, torch drew " << want.at("count");
    }
    auto r = SameFloats(std::vector<float>(got.begin(), got.begin() + 16), want.at("head"));
    if (!r) return r << " (head)";
    auto t = SameFloats(std::vector<float>(got.end() - 16, got.end()), want.at("tail"));
    if (!t) return t << " (tail)";
    if (fnv1a64(got) != want.at("fnv1a64").get<std::string>()) {
      return ::testing::AssertionFailure() << "hash " << fnv1a64(got) << " != torch's " << want.at("fnv1a64");
    }
    return ::testing::AssertionSuccess();
  }
  const std::vector<std::uint32_t> words = hex_words(want.at("f32").get<std::string>());
  if (got.size() != words.size()) {
    return ::testing::AssertionFailure() << got.size() << " values, torch drew " << words.size();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (bits_of(got[i]) != words[i]) {
      return ::testing::AssertionFailure() << "value " << i << ": " << hex(bits_of(got[i])) << " (" << got[i]
                                           << "), torch " << hex(words[i]) << " (" << float_of(words[i]) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult SameInts(const std::vector<std::int64_t>& got, const json& want) {
  if (want.contains("count")) {
    if (static_cast<long long>(got.size()) != want.at("count").get<long long>()) {
      return ::testing::AssertionFailure() << got.size() << " values, torch drew " << want.at("count");
    }
    auto r = SameInts(std::vector<std::int64_t>(got.begin(), got.begin() + 16), want.at("head"));
    if (!r) return r << " (head)";
    if (fnv1a64(got) != want.at("fnv1a64").get<std::string>()) {
      return ::testing::AssertionFailure() << "hash " << fnv1a64(got) << " != torch's " << want.at("fnv1a64");
    }
    return ::testing::AssertionSuccess();
  }
  const std::vector<std::int64_t> values = want.at("i64").get<std::vector<std::int64_t>>();
  if (got != values) {
    for (size_t i = 0; i < std::min(got.size(), values.size()); ++i) {
      if (got[i] != values[i]) {
        return ::testing::AssertionFailure() << "value " << i << ": " << got[i] << ", torch " << values[i];
      }
    }
    return ::testing::AssertionFailure() << got.size() << " values, torch drew " << values.size();
  }
  return ::testing::AssertionSuccess();
}

// The seed's printed numbers (4 decimals; integers exactly) agree with what we drew.
void ExpectPrinted(const std::vector<double>& got, const json& printed) {
  std::vector<double> flat;  // nested lists, depth-first = row-major
  std::function<void(const json&)> walk = [&](const json& v) {
    if (v.is_array()) {
      for (const json& e : v) walk(e);
    } else {
      flat.push_back(v.get<double>());
    }
  };
  walk(printed);
  ASSERT_EQ(flat.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], flat[i], 0.5e-4 + 1e-9) << "printed value " << i;
}

std::uint64_t seed_of(const json& call) {
  const json& s = call.at("seed");
  return s.is_number_unsigned() ? s.get<std::uint64_t>() : static_cast<std::uint64_t>(s.get<std::int64_t>());
}

attn::Tensor empty_tensor(const json& shape) {
  attn::Tensor t;
  t.shape = shape.get<std::vector<int>>();
  t.data.resize(static_cast<size_t>(attn_test::element_count(t.shape)));
  return t;
}

// Replays one recorded call on g and checks what it drew; returns the number of values compared.
long long ReplayCall(TorchGenerator& g, const json& call) {
  const std::string op = call.at("op").get<std::string>();
  if (op == "manual_seed") {
    g.manual_seed(seed_of(call));
    EXPECT_EQ(g.initial_seed(), call.at("initial_seed").get<std::uint64_t>());
    return 0;
  }
  if (op == "skip") {
    for (long long i = 0, n = call.at("words").get<long long>(); i < n; ++i) g.random();
    return 0;
  }
  if (op == "rand" || op == "randn") {
    const std::vector<int> shape = call.at("shape").get<std::vector<int>>();
    std::vector<float> got;
    for (int r = 0, n = call.value("repeat", 1); r < n; ++r) {
      const attn::Tensor t = op == "rand" ? g.rand(shape) : g.randn(shape);
      EXPECT_EQ(t.shape, shape);
      got.insert(got.end(), t.data.begin(), t.data.end());
    }
    EXPECT_TRUE(SameFloats(got, call.at("out")));
    if (call.contains("printed")) ExpectPrinted(std::vector<double>(got.begin(), got.end()), call.at("printed"));
    return static_cast<long long>(got.size());
  }
  if (op == "randint") {
    const attn::IntTensor t = g.randint(call.at("low").get<std::int64_t>(), call.at("high").get<std::int64_t>(),
                                        call.at("shape").get<std::vector<int>>());
    EXPECT_TRUE(SameInts(t.data, call.at("out")));
    if (call.contains("printed")) ExpectPrinted(std::vector<double>(t.data.begin(), t.data.end()), call.at("printed"));
    return static_cast<long long>(t.data.size());
  }
  if (op == "uniform_" || op == "normal_") {
    attn::Tensor t = empty_tensor(call.at("shape"));
    if (op == "uniform_") {
      g.uniform_(t, call.at("from").get<double>(), call.at("to").get<double>());
    } else {
      g.normal_(t, call.at("mean").get<double>(), call.at("std").get<double>());
    }
    EXPECT_TRUE(SameFloats(t.data, call.at("out")));
    return t.size();
  }
  if (op == "linear") {
    const int in = call.at("in_features").get<int>(), out = call.at("out_features").get<int>();
    const bool bias = call.at("bias").get<bool>();
    const attn::LinearParams p = g.linear_init(in, out, bias);
    EXPECT_EQ(p.weight.shape, (std::vector<int>{out, in}));
    EXPECT_TRUE(SameFloats(p.weight.data, call.at("weight"))) << "weight";
    EXPECT_EQ(p.has_bias, bias);
    if (bias) {
      EXPECT_TRUE(SameFloats(p.bias.data, call.at("bias_values"))) << "bias";
    }
    return p.weight.size() + p.bias.size();
  }
  if (op == "embedding") {
    const attn::Tensor w = g.embedding_init(call.at("num_embeddings").get<int>(), call.at("embedding_dim").get<int>());
    EXPECT_TRUE(SameFloats(w.data, call.at("weight")));
    return w.size();
  }
  if (op == "bernoulli") {
    const attn::Tensor t = g.bernoulli(call.at("p").get<double>(), call.at("shape").get<std::vector<int>>());
    EXPECT_TRUE(SameFloats(t.data, call.at("out")));
    return t.size();
  }
  if (op == "dropout") {
    const std::vector<float> input = json_floats(call.at("input"));
    attn::TensorView view;
    view.data = input.data();
    view.shape = {static_cast<int>(input.size())};
    const attn::DropoutDraw d = g.dropout(view, call.at("p").get<double>(), call.at("training").get<bool>());
    EXPECT_TRUE(SameFloats(d.output.data, call.at("output"))) << "output";
    EXPECT_TRUE(SameInts(std::vector<std::int64_t>(d.keep.begin(), d.keep.end()), call.at("keep"))) << "keep";
    EXPECT_EQ(d.scale, static_cast<float>(call.at("scale").get<double>()));
    return static_cast<long long>(input.size());
  }
  ADD_FAILURE() << "unknown op " << op;
  return 0;
}

// Which test replays which streams (by name prefix); EveryStreamIsReplayed checks the table is whole.
const std::vector<std::pair<std::string, std::vector<std::string>>>& groups() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {"seed001", {"seed001_"}},
      {"seed002", {"seed002"}},
      {"seed003", {"seed003"}},
      {"unseeded", {"seed000_", "seed004_"}},
      {"switch", {"randn_sizes_", "normal_sizes_", "shapes"}},
      {"seeds", {"seed_"}},
      {"ranges", {"ranges"}},
      {"interleaved", {"interleaved"}},
      {"long", {"long"}},
      {"modules", {"modules"}},
      {"bernoulli", {"bernoulli", "dropout"}},
  };
  return table;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

void ReplayGroup(const std::string& group) {
  std::vector<std::string> prefixes;
  for (const auto& [name, list] : groups())
    if (name == group) prefixes = list;
  ASSERT_FALSE(prefixes.empty()) << group;
  int streams = 0;
  long long values = 0;
  for (const json& s : document().at("streams")) {
    const std::string name = s.at("name").get<std::string>();
    bool mine = false;
    for (const std::string& p : prefixes) mine = mine || starts_with(name, p);
    if (!mine) continue;
    ++streams;
    TorchGenerator g(0);
    int index = 0;
    for (const json& call : s.at("calls")) {
      SCOPED_TRACE(name + " call " + std::to_string(index++) + ": " +
                   call.value("cell", call.at("op").get<std::string>()));
      values += ReplayCall(g, call);
    }
  }
  EXPECT_GT(streams, 0) << group;
  ::testing::Test::RecordProperty("values_compared", std::to_string(values));
}

TEST(TorchRandomFixture, EveryStreamIsReplayedByATest) {
  for (const json& s : document().at("streams")) {
    const std::string name = s.at("name").get<std::string>();
    int owners = 0;
    for (const auto& [group, prefixes] : groups())
      for (const std::string& p : prefixes) owners += starts_with(name, p) ? 1 : 0;
    EXPECT_EQ(owners, 1) << name;
  }
}

TEST(TorchRandomFixture, Seed001DrawsInNotebookOrderAndAtItsOffsets) { ReplayGroup("seed001"); }
TEST(TorchRandomFixture, Seed002RandnRandintAndLinearDrawsAreTorchs) { ReplayGroup("seed002"); }
TEST(TorchRandomFixture, Seed003ThreeRandDrawsAreTorchs) { ReplayGroup("seed003"); }
TEST(TorchRandomFixture, UnseededSeedsDrawTorchsStreamAfterManualSeed0) { ReplayGroup("unseeded"); }
TEST(TorchRandomFixture, NormalAroundTheSixteenElementSwitchAndOddTailsIsTorchs) { ReplayGroup("switch"); }
TEST(TorchRandomFixture, SeedsUseTheirLow32BitsAsTorchDoes) { ReplayGroup("seeds"); }
TEST(TorchRandomFixture, RandintRangesBelowAndAbove2To32AndUniformNormalArgumentsAreTorchs) { ReplayGroup("ranges"); }
TEST(TorchRandomFixture, InterleavedCallsContinueOneStream) { ReplayGroup("interleaved"); }
TEST(TorchRandomFixture, LongStreamsStayInStep) { ReplayGroup("long"); }
TEST(TorchRandomFixture, LinearAndEmbeddingInitialisationIsTorchs) { ReplayGroup("modules"); }
TEST(TorchRandomFixture, BernoulliAndDropoutMasksAreTorchs) { ReplayGroup("bernoulli"); }

// Splitting a call gives the same draws exactly where torch says it does (recorded per case).
TEST(TorchRandomFixture, SplittingACallChangesTheDrawsOnlyWhereTorchsDo) {
  for (const json& p : document().at("properties")) {
    SCOPED_TRACE(p.at("name").get<std::string>());
    auto run = [&](const json& calls) {
      TorchGenerator g(p.at("seed").get<std::uint64_t>());
      std::vector<float> all;
      for (const json& c : calls) {
        const std::string op = c.at("op").get<std::string>();
        const int n = c.at("n").get<int>();
        attn::Tensor t;
        if (op == "rand") t = g.rand({n});
        if (op == "randn") t = g.randn({n});
        if (op == "bernoulli") t = g.bernoulli(0.5, {n});
        if (op == "randint") {
          for (std::int64_t v : g.randint(0, 1000, {n}).data) t.data.push_back(static_cast<float>(v));
        }
        all.insert(all.end(), t.data.begin(), t.data.end());
      }
      return all;
    };
    const std::vector<float> a = run(p.at("a")), b = run(p.at("b"));
    EXPECT_EQ(a == b, p.at("equal").get<bool>());
  }
}

// ---------------------------------------------------------------------------------------------
// The seeds' printed numbers, straight from the generator.

TEST(TorchGenerator, Seed001RandnAfterManualSeed42PrintsTheNotebooksX) {
  TorchGenerator g(42);
  const attn::Tensor x = g.randn({3, 5});
  const std::vector<double> printed = {0.3367, 0.1288, 0.2345, 0.2303, -1.1229, -0.1863, 2.2082, -0.6380,
                                       0.4617, 0.2674, 0.5349, 0.8094, 1.1103,  -1.6898, -0.9890};
  for (size_t i = 0; i < printed.size(); ++i) EXPECT_NEAR(x.data[i], printed[i], 0.5e-4 + 1e-9) << i;
}

TEST(TorchGenerator, Seed002RandintAfterManualSeed42Gives27_64_65) {
  for (int run = 0; run < 3; ++run) {
    TorchGenerator g(42);
    EXPECT_EQ(g.randint(0, 10, {3, 2}).data, (std::vector<std::int64_t>{2, 7, 6, 4, 6, 5}));
  }
}

TEST(TorchGenerator, Seed003SelfAttentionAfterManualSeed0GivesThePrintedRiverAndFinanceOutputs) {
  TorchGenerator g(0);
  const attn::Tensor wq = g.rand({4, 3}), wk = g.rand({4, 3}), wv = g.rand({4, 3});  // (d_in, d_out): x·W
  const std::vector<std::pair<std::vector<std::string>, std::vector<double>>> cases = {
      {attn::examples::bank().river, {0.540, 0.705, 1.030, 0.538, 0.706, 1.030, 0.541, 0.703, 1.025}},
      {attn::examples::bank().finance, {0.220, 0.418, 0.642, 0.213, 0.404, 0.624, 0.216, 0.409, 0.630}},
  };
  for (const auto& [tokens, printed] : cases) {
    const std::vector<float> x = attn::examples::embed(tokens);
    attn::Inputs in;
    in.x = {x.data(), {3, 4}};
    in.wq = attn_test::view_of(wq);
    in.wk = attn_test::view_of(wk);
    in.wv = attn_test::view_of(wv);
    const attn::Trace t = attn::attend(in, attn::Options{});
    ASSERT_EQ(t.output.data.size(), printed.size());
    for (size_t i = 0; i < printed.size(); ++i) {
      EXPECT_EQ(std::lround(t.output.data[i] * 1000.0), std::lround(printed[i] * 1000.0)) << tokens[1] << " " << i;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The stream, without the fixture.

TEST(TorchGenerator, MatchesTheStandardMt19937ForTheLow32BitsOfTheSeed) {
  TorchGenerator g((std::uint64_t{7} << 32) | 5489u);
  std::mt19937 reference(5489u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(g.random(), reference()) << i;
  TorchGenerator h(0);
  const std::uint64_t hi = TorchGenerator(0).random();
  EXPECT_EQ(h.random64() >> 32, hi);  // random64 takes the first word as the high half
}

TEST(TorchGenerator, ManualSeedRestartsTheStreamAndForgetsTheCachedNormal) {
  TorchGenerator g(9);
  const attn::Tensor first = g.randn({1});  // leaves the pair's sine sample cached
  g.randn({20});                            // the vectorised fill neither reads nor writes the cache
  g.manual_seed(9);
  EXPECT_EQ(g.randn({1}).data, first.data);
  TorchGenerator fresh(9);
  fresh.randn({1});
  g.manual_seed(9);
  g.randn({1});
  EXPECT_EQ(g.randn({1}).data, fresh.randn({1}).data);  // the cached sine sample, in both
}

TEST(TorchGenerator, ACopyContinuesTheSameStreamIndependently) {
  TorchGenerator g(3);
  g.randn({5});  // a cached sample is part of the state
  TorchGenerator copy = g;
  EXPECT_EQ(g.randn({7}).data, copy.randn({7}).data);
  EXPECT_EQ(g.rand({40}).data, copy.rand({40}).data);
}

TEST(TorchGenerator, EmptyShapesDrawNothingAndAScalarDrawsOne) {
  TorchGenerator g(1), reference(1);
  EXPECT_TRUE(g.randn({0}).data.empty());
  EXPECT_TRUE(g.rand({3, 0, 2}).data.empty());
  EXPECT_TRUE(g.randint(0, 5, {0}).data.empty());
  EXPECT_TRUE(g.bernoulli(0.5, {2, 0}).data.empty());
  EXPECT_EQ(g.linear_init(3, 0, true).weight.data.size(), 0u);
  EXPECT_EQ(g.rand({}).data.size(), 1u);
  reference.rand({1});
  EXPECT_EQ(g.random(), reference.random());
}

TEST(TorchGenerator, DropoutKeepMaskReproducedByAttendWithDropoutKeep) {
  // The keep-mask F.dropout draws for the weights is Options::dropout_keep: attend() then drops
  // the same weights (its own 1/(1 − p), computed from a float p, may differ by an ulp).
  const std::vector<std::string> river = attn::examples::bank().river;
  const std::vector<float> x = attn::examples::embed(river);
  attn::Inputs in;
  in.x = {x.data(), {3, 4}};
  for (double p : {0.1, 0.5, 0.9}) {
    const attn::Trace plain = attn::attend(in, attn::Options{});
    TorchGenerator g(5);
    const attn::DropoutDraw d = g.dropout(attn_test::view_of(plain.weights), p);
    attn::Options opt;
    opt.training = true;
    opt.dropout = static_cast<float>(p);
    opt.dropout_keep = d.keep;
    const attn::Trace dropped = attn::attend(in, opt);
    EXPECT_TRUE(
        attn_test::ValuesNear(dropped.dropped.data, d.output.data, {0.0, 2e-7}, "dropped, p = " + std::to_string(p)));
  }
}

// ---------------------------------------------------------------------------------------------
// Errors: named arguments, and nothing drawn before the checks pass.

TEST(TorchGeneratorErrors, BadArgumentsThrowNamingTheArgumentAndDrawNothing) {
  using attn_test::ThrowsNaming;
  TorchGenerator g(11);
  attn::Tensor t3;
  t3.shape = {3};
  t3.data.resize(3);
  attn::Tensor wrong;
  wrong.shape = {4};
  wrong.data.resize(3);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const float bad_input[] = {0.5f, nan};

  EXPECT_TRUE(ThrowsNaming([&] { g.rand({-1}); }, {"shape", "≥ 0", "(-1,)"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.randn({2, -3}); }, {"shape", "(2, -3)"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.randn({4096, 4097}); }, {"shape", "16777216"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.rand({65536, 65536, 65536}); }, {"shape", "16777216"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.randint(5, 5, {2}); }, {"high", "low < high", "low=5", "high=5"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.randint(6, 5, {2}); }, {"high", "low < high"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.randint(0, 10, {-2}); }, {"shape"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.bernoulli(1.5, {2}); }, {"p", "[0, 1]", "1.5"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.bernoulli(-0.1, {2}); }, {"p", "[0, 1]"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.bernoulli(nan, {2}); }, {"p", "nan"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.dropout({bad_input, {1}}, 1.5); }, {"p", "[0, 1]"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.dropout({bad_input, {2}}, 0.5); }, {"input", "finite", "flat index 1"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.dropout({nullptr, {2}}, 0.5); }, {"input", "without data"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.normal_(t3, 0.0, -1.0); }, {"std", "≥ 0"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.normal_(t3, inf, 1.0); }, {"mean", "finite"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.normal_(wrong, 0.0, 1.0); }, {"tensor", "(4,)"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.uniform_(t3, 1.0, 0.0); }, {"to", "from ≤ to"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.uniform_(t3, 0.0, inf); }, {"to", "finite"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.uniform_(t3, -3e38, 3e38); }, {"to", "float range"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.linear_init(-1, 3, true); }, {"in_features", "≥ 0", "-1"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.linear_init(3, -2, false); }, {"out_features", "≥ 0"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.linear_init(5000, 5000, true); }, {"in_features × out_features", "16777216"}));
  // tests/fuzz F6: an empty weight (in_features 0) no longer lets the bias past the limit.
  EXPECT_TRUE(ThrowsNaming([&] { g.linear_init(0, 2147483647, true); }, {"out_features", "16777216"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.embedding_init(3, -2); }, {"embedding_dim", "≥ 0"}));
  EXPECT_TRUE(ThrowsNaming([&] { g.embedding_init(-3, 2); }, {"num_embeddings", "≥ 0"}));
  EXPECT_TRUE(ThrowsNaming([] { TorchGenerator::seed_from_number(0.5); }, {"seed", "integer"}));
  EXPECT_TRUE(ThrowsNaming([] { TorchGenerator::seed_from_number(std::nan("")); }, {"seed"}));
  EXPECT_TRUE(ThrowsNaming([] { TorchGenerator::seed_from_number(1e17); }, {"seed", "2^53"}));

  TorchGenerator fresh(11);
  EXPECT_EQ(g.random(), fresh.random()) << "a rejected call drew from the stream";
}

TEST(TorchGeneratorErrors, SeedsFromNumbersWrapNegativesAsTorchDoes) {
  EXPECT_EQ(TorchGenerator::seed_from_number(42), 42u);
  EXPECT_EQ(TorchGenerator::seed_from_number(-1), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(TorchGenerator::seed_from_number(9007199254740992.0), std::uint64_t{1} << 53);
  EXPECT_EQ(TorchGenerator::seed_from_number(-9007199254740992.0), std::uint64_t{0} - (std::uint64_t{1} << 53));
}

}  // namespace
