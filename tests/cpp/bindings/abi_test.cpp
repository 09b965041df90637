// The ABI of src/bindings/abi.h, natively: the description names the headers as they are and
// every call's arguments once; a call packed the way web/engine/abi.js packs it (from the
// description's names and order, bindings/abi_client.h) gives what the core gives; a malformed
// packing or a wrong scalar fails naming it and the next call answers. The model's calls are in
// abi_model_test.cpp; tests/js/engine/abi.test.mjs checks the JavaScript side against the same
// description.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "abi_client.h"
#include "bindings/abi.h"
#include "core/attention.h"
#include "test_util.h"

namespace {

using attn_test::AbiCall;
using attn_test::Reply;
using json = nlohmann::json;

const json& described() { return attn_test::abi_description(); }
const json& call_named(const std::string& name) { return described().at("calls").at(name); }

const json& named(const json& list, const std::string& name) {
  for (const json& entry : list)
    if (entry.at("name") == name) return entry;
  throw std::invalid_argument("no entry " + name);
}

std::vector<std::string> names_of(const json& list) {
  std::vector<std::string> out;
  for (const json& entry : list)
    out.push_back(entry.is_string() ? entry.get<std::string>() : entry.at("name").get<std::string>());
  return out;
}

// Reads a header field by its name in the description, as abi.js does.
template <typename T>
T get(std::uintptr_t header, const char* fields, const std::string& name) {
  T value;
  const std::size_t offset = named(described().at(fields), name).at("offset");
  std::memcpy(&value, reinterpret_cast<const char*>(header) + offset, sizeof value);
  return value;
}

TEST(AbiLayout, HeaderFieldsAreDistinctAlignedAndInsideTheirHeader) {
  auto check = [](const json& fields, size_t header_size, const char* what) {
    std::set<std::string> names;
    std::set<size_t> offsets;
    for (const json& f : fields) {
      const std::string name = f.at("name"), type = f.at("type");
      const size_t offset = f.at("offset");
      SCOPED_TRACE(std::string(what) + "." + name);
      EXPECT_TRUE(names.insert(name).second) << "duplicate name";
      EXPECT_TRUE(offsets.insert(offset).second) << "duplicate offset";
      EXPECT_EQ(offset % 4, 0u);
      const size_t bytes = std::stoul(type.substr(1)) / 8;
      EXPECT_LE(offset + bytes, header_size);
      EXPECT_TRUE(type[0] == 'i' || type[0] == 'u' || type[0] == 'f') << type;
    }
  };
  check(described().at("sections"), sizeof(attn::abi::CallHeader), "call");
  check(described().at("result"), sizeof(attn::abi::ResultHeader), "result");
  EXPECT_EQ(described().at("word"), sizeof(std::uintptr_t) == 4 ? "u32" : "u64");
  // attend's options are its scalars, each of its kind: a float, an integer, a 64-bit seed.
  EXPECT_EQ(named(call_named("attend").at("scalars"), "temperature").at("kind"), "number");
  EXPECT_EQ(named(call_named("attend").at("scalars"), "heads").at("kind"), "integer");
  EXPECT_EQ(named(call_named("attend").at("scalars"), "seed").at("kind"), "integer");
}

TEST(AbiLayout, KernelNamesAreIndexedByEnumValueAndAttendResultsCoverTheTrace) {
  const std::vector<std::string> kernels = described().at("enums").at("kernel");
  ASSERT_EQ(kernels.size(), 5u);
  for (size_t k = 0; k < kernels.size(); ++k) EXPECT_EQ(attn::parse_kernel(kernels[k]), static_cast<attn::Kernel>(k));
  EXPECT_EQ(described().at("enums").at("scaleMode").get<std::vector<std::string>>(),
            (std::vector<std::string>{"inverseSqrtHeadSize", "none", "factor"}));
  EXPECT_EQ(named(call_named("attend").at("scalars"), "kernel").at("enum"), "kernel");
  // Every Trace tensor, in the names the JS API uses (head_outputs → headOutputs).
  std::vector<std::string> want;
  for (std::string name : attn_test::trace_tensor_names())
    want.push_back(name == "head_outputs" ? "headOutputs" : name);
  EXPECT_EQ(names_of(call_named("attend").at("results")), want);
  EXPECT_EQ(names_of(call_named("project").at("results")), (std::vector<std::string>{"y"}));
  EXPECT_EQ(names_of(call_named("attend").at("flags")), (std::vector<std::string>{"keyPadding", "dropoutKeep"}));
}

TEST(AbiLayout, EveryArgumentIsNamedOnceInItsCallAndEveryEnumItNamesIsDescribed) {
  // abi.js takes a call's arguments as one object by name: a name used twice would be ambiguous.
  const json& enums = described().at("enums");
  int id = 0;
  std::string last;
  for (const auto& [name, c] : described().at("calls").items()) {
    SCOPED_TRACE(name);
    // The calls are in name order, and invoke()'s index is the position in that order.
    EXPECT_LT(last, name);
    last = name;
    EXPECT_EQ(c.at("id"), id);
    EXPECT_EQ(attn::abi::call_index(name), id++);
    std::set<std::string> arguments;
    for (const char* part : {"tensors", "flags", "shapes", "lists", "blobs", "scalars"})
      for (const std::string& n : names_of(c.at(part))) EXPECT_TRUE(arguments.insert(n).second) << n;
    std::set<std::string> outputs;
    for (const char* part : {"results", "report"})
      for (const std::string& n : names_of(c.at(part))) EXPECT_TRUE(outputs.insert(n).second) << n;
    for (const char* part : {"scalars", "report"})
      for (const json& s : c.at(part)) {
        const bool is_enum = s.at("kind") == "enum";
        EXPECT_EQ(s.contains("enum"), is_enum) << s.dump();
        if (is_enum) {
          EXPECT_TRUE(enums.contains(s.at("enum").get<std::string>())) << s.dump();
        }
      }
  }
  EXPECT_EQ(attn::abi::call_index("noSuchCall"), -1);
}

TEST(AbiCalls, AttendPackedByNameGivesTheCoresTrace) {
  std::mt19937 rng(3);
  const attn_test::Owned x = attn_test::random_tensor(rng, {2, 5, 4}), wq = attn_test::random_tensor(rng, {4, 4});
  const attn_test::Owned wk = attn_test::random_tensor(rng, {4, 4}), wv = attn_test::random_tensor(rng, {4, 6});
  const Reply r = AbiCall("attend")
                      .tensor("x", x.shape, x.data)
                      .tensor("wq", wq.shape, wq.data)
                      .tensor("wk", wk.shape, wk.data)
                      .tensor("wv", wv.shape, wv.data)
                      .flags("keyPadding", {5}, {1, 1, 0, 1, 1})
                      .choice("kernel", "vectorized")
                      .set("heads", 2)
                      .set("causal", 1)
                      .choice("scaleMode", "factor")
                      .set("scale", 0.7)
                      .set("temperature", 1.5)
                      .set("training", 0)
                      .set("materialize", 1)
                      .run();
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_EQ(r.report.at("kernel"), 1);  // "vectorized", by enum value
  EXPECT_EQ(r.report.at("batched"), 1);
  EXPECT_FLOAT_EQ(static_cast<float>(r.report.at("scale")), 0.7f);

  attn::Inputs in;
  in.x = x.view();
  in.wq = wq.view();
  in.wk = wk.view();
  in.wv = wv.view();
  attn::Options opt;
  opt.kernel = attn::Kernel::kEigen;
  opt.heads = 2;
  opt.causal = true;
  opt.scale_mode = attn::ScaleMode::kFactor;
  opt.scale_factor = 0.7f;
  opt.temperature = 1.5f;
  opt.key_padding = {1, 1, 0, 1, 1};
  opt.key_padding_shape = {5};
  const attn::Trace want = attn::attend(in, opt);
  ASSERT_EQ(r.tensors.size(), 11u);
  for (const auto& [name, tensor] : r.tensors) {
    const attn::Tensor& w = attn_test::trace_tensor(want, name == "headOutputs" ? "head_outputs" : name);
    EXPECT_EQ(tensor.shape, w.shape) << name;
    EXPECT_EQ(tensor.floats(), w.data) << name;
  }
}

TEST(AbiCalls, AttendBackwardPackedByNameGivesTheCoresGradients) {
  std::mt19937 rng(5);
  const attn_test::Owned x = attn_test::random_tensor(rng, {4, 3}), wqkv = attn_test::random_tensor(rng, {6, 3});
  const attn_test::Owned g = attn_test::random_tensor(rng, {4, 2});
  EXPECT_EQ(call_named("attendBackward").at("tensors").back().at("name"), "gradOutput");
  const Reply r = AbiCall("attendBackward")
                      .tensor("x", x.shape, x.data)
                      .tensor("wqkv", wqkv.shape, wqkv.data)
                      .tensor("gradOutput", g.shape, g.data)
                      .choice("kernel", "simd")
                      .set("heads", 2)
                      .set("causal", 1)
                      .choice("scaleMode", "inverseSqrtHeadSize")
                      .set("temperature", 1.0)
                      .set("training", 0)
                      .set("materialize", 1)
                      .run();
  ASSERT_FALSE(r.failed) << r.error;

  attn::Inputs in;
  in.x = x.view();
  in.wqkv = wqkv.view();
  attn::Options opt;
  opt.kernel = attn::Kernel::kSimd;
  opt.heads = 2;
  opt.causal = true;
  const attn::Gradients want = attn::attend_backward(in, opt, g.view());
  ASSERT_EQ(r.tensors.size(), 2u) << "x and wqkv were given";
  EXPECT_EQ(r.tensors[0].first, "x");
  EXPECT_EQ(r.tensors[0].second.floats(), want.x.data);
  EXPECT_EQ(r.tensors[1].first, "wqkv");
  EXPECT_EQ(r.tensors[1].second.shape, (std::vector<int>{6, 3}));
  EXPECT_EQ(r.tensors[1].second.floats(), want.wqkv.data);

  // Without projections the output is x's shape (4, 3): g (4, 2) is refused, naming gradOutput.
  const Reply refused = AbiCall("attendBackward")
                            .tensor("x", x.shape, x.data)
                            .tensor("gradOutput", g.shape, g.data)
                            .set("heads", 1)
                            .run();
  EXPECT_TRUE(refused.failed);
  EXPECT_NE(refused.error.find("gradOutput: expected shape (4, 3)"), std::string::npos) << refused.error;
}

TEST(AbiCalls, ProjectAndAveragingPackedByNameGiveTheCoresResults) {
  std::mt19937 rng(4);
  const attn_test::Owned x = attn_test::random_tensor(rng, {3, 4}), w = attn_test::random_tensor(rng, {4, 2});
  const attn_test::Owned b = attn_test::random_tensor(rng, {2});
  const Reply y =
      AbiCall("project").tensor("x", x.shape, x.data).tensor("w", w.shape, w.data).tensor("b", b.shape, b.data).run();
  ASSERT_EQ(y.tensors.size(), 1u) << y.error;
  EXPECT_EQ(y.tensors[0].first, "y");
  EXPECT_EQ(y.tensors[0].second.floats(), attn::linear(x.view(), w.view(), b.view()).data);
  EXPECT_EQ(y.report.at("batched"), 0);

  const Reply averaged = AbiCall("averaging").tensor("x", x.shape, x.data).run();
  ASSERT_EQ(averaged.tensors.size(), 6u) << averaged.error;
  EXPECT_EQ(averaged.tensors[0].first, "loop");
  EXPECT_EQ(averaged.tensors[0].second.floats(), attn::causal_average(x.view()).loop.data);

  const Reply cosine = AbiCall("cosine").tensor("a", {2}, {1, 0}).tensor("b", {2}, {1, 1}).run();
  ASSERT_FALSE(cosine.failed) << cosine.error;
  EXPECT_FLOAT_EQ(static_cast<float>(cosine.report.at("similarity")), std::sqrt(0.5f));
  const Reply unequal = AbiCall("cosine").tensor("a", {2}, {1, 0}).tensor("b", {3}, {1, 1, 1}).run();
  EXPECT_EQ(unequal.error, "b: expected length 2 like a, got 3");
}

// Packs sections by hand, whatever the description says, to break them.
struct Packed {
  std::vector<float> floats;
  std::vector<std::int32_t> ints;
  std::vector<std::uint8_t> bytes;
  std::vector<double> numbers;

  void tensor(const attn_test::Owned* t) {
    if (!t) {
      ints.push_back(0);
      return;
    }
    ints.push_back(static_cast<int>(t->shape.size()));
    ints.insert(ints.end(), t->shape.begin(), t->shape.end());
    floats.insert(floats.end(), t->data.begin(), t->data.end());
  }
  // Every scalar of the call, in its order, from `values` (the rest not given).
  void scalars(const std::string& call, const std::map<std::string, double>& values) {
    for (const std::string& name : names_of(call_named(call).at("scalars"))) {
      const auto found = values.find(name);
      numbers.push_back(found == values.end() ? std::nan("") : found->second);
    }
  }
  std::uintptr_t run(const std::string& call) const {
    const std::uintptr_t header = attn::abi::prepare(static_cast<int>(floats.size()), static_cast<int>(ints.size()),
                                                     static_cast<int>(bytes.size()), static_cast<int>(numbers.size()));
    auto section = [&](const char* name) {
      return reinterpret_cast<void*>(get<std::uintptr_t>(header, "sections", name));
    };
    if (!floats.empty()) std::memcpy(section("floats"), floats.data(), floats.size() * sizeof(float));
    if (!ints.empty()) std::memcpy(section("ints"), ints.data(), ints.size() * sizeof(std::int32_t));
    if (!bytes.empty()) std::memcpy(section("bytes"), bytes.data(), bytes.size());
    if (!numbers.empty()) std::memcpy(section("numbers"), numbers.data(), numbers.size() * sizeof(double));
    return attn::abi::invoke(attn::abi::call_index(call));
  }
};

TEST(AbiCalls, MalformedPackingFailsNamingTheCallAndTheNextCallAnswers) {
  const char* result = "result";
  Packed short_ints;  // x's rank and one dim, then nothing
  short_ints.ints = {2, 3};
  EXPECT_EQ(get<std::int32_t>(short_ints.run("attend"), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "attend: malformed argument packing");

  Packed too_few_floats;  // (3, 4) needs 12 floats
  too_few_floats.ints = {2, 3, 4, 0, 0};
  too_few_floats.floats.assign(11, 0.0f);
  EXPECT_EQ(get<std::int32_t>(too_few_floats.run("project"), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "project: malformed argument packing");

  Packed left_over;  // an extra int after the last argument
  const attn_test::Owned x = attn_test::filled({2, 2}, 1.0f);
  left_over.tensor(&x);
  left_over.ints.push_back(7);
  EXPECT_EQ(get<std::int32_t>(left_over.run("averaging"), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "averaging: malformed argument packing");

  Packed extra_number;  // averaging has no scalar
  extra_number.tensor(&x);
  extra_number.numbers.push_back(1);
  EXPECT_EQ(get<std::int32_t>(extra_number.run("averaging"), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "averaging: malformed argument packing");

  // A core error comes through with its argument name.
  Packed bad_w;
  const attn_test::Owned w = attn_test::filled({3, 2}, 1.0f);
  bad_w.tensor(&x);
  bad_w.tensor(&w);
  bad_w.tensor(nullptr);
  EXPECT_EQ(get<std::int32_t>(bad_w.run("project"), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error().rfind("w: expected shape (2, 2)", 0), 0u) << attn::abi::last_error();

  Packed one_dim;
  const attn_test::Owned v = attn_test::filled({3}, 1.0f);
  one_dim.tensor(&v);
  EXPECT_EQ(get<std::int32_t>(one_dim.run("averaging"), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error().rfind("x: expected 2 or 3 dimensions", 0), 0u) << attn::abi::last_error();

  Packed good;
  good.tensor(&x);
  EXPECT_EQ(get<std::int32_t>(good.run("averaging"), result, "failed"), 0);

  // No call of that index.
  EXPECT_EQ(get<std::int32_t>(attn::abi::invoke(-1), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error().rfind("invoke: no call -1", 0), 0u) << attn::abi::last_error();
}

TEST(AbiCalls, AScalarNotGivenKeepsItsDefaultAndOneOfTheWrongKindFailsNamingIt) {
  const attn_test::Owned x = attn_test::filled({2, 4}, 0.5f);
  const Reply defaults = AbiCall("attend").tensor("x", x.shape, x.data).run();  // heads 1, scale 1/√4, auto
  ASSERT_FALSE(defaults.failed) << defaults.error;
  EXPECT_EQ(defaults.report.at("scale"), 0.5);
  EXPECT_EQ(defaults.report.at("kernel"), static_cast<double>(attn::Kernel::kSimd));

  const std::pair<const char*, double> wrong[] = {{"heads", 1.5}, {"heads", 3e9},    {"causal", 2},
                                                  {"kernel", 5},  {"kernel", -1},    {"scaleMode", 0.5},
                                                  {"seed", -1},   {"training", -0.5}};
  for (const auto& [name, value] : wrong) {
    const Reply r = AbiCall("attend").tensor("x", x.shape, x.data).set(name, value).run();
    EXPECT_TRUE(r.failed) << name << " " << value;
    EXPECT_EQ(r.error.rfind(std::string(name) + ": expected ", 0), 0u) << r.error;
  }
  EXPECT_FALSE(AbiCall("attend").tensor("x", x.shape, x.data).run().failed) << "and the next call answers";
}

TEST(AbiCalls, AnEmptyShapeIsEmptyHoweverLargeItsOtherDims) {
  // tests/fuzz F7: (2^31 − 1, 2^31 − 1, 0) is torch's empty tensor, not a malformed packing.
  const char* result = "result";
  const Reply created = AbiCall("generatorCreate").set("seed", 1).run();
  ASSERT_FALSE(created.failed) << created.error;
  const double handle = created.report.at("generator");
  ASSERT_GT(handle, 0);
  Packed empty;
  empty.ints = {0, 3, 2147483647, 2147483647, 0};             // no input tensor; the shape
  empty.scalars("draw", {{"generator", handle}, {"op", 0}});  // rand
  const std::uintptr_t drawn = empty.run("draw");
  ASSERT_EQ(get<std::int32_t>(drawn, result, "failed"), 0) << attn::abi::last_error();
  const auto* layout = reinterpret_cast<const std::uintptr_t*>(get<std::uintptr_t>(drawn, result, "layout"));
  ASSERT_EQ(get<std::int32_t>(drawn, result, "layoutLength"), 3 + 3);  // values: index, address, rank 3, dims
  EXPECT_EQ(layout[5], 0u) << "no element";
  Packed huge;
  huge.ints = {0, 3, 2147483647, 2147483647, 1};  // 2^62 elements: malformed still
  huge.scalars("draw", {{"generator", handle}, {"op", 0}});
  EXPECT_EQ(get<std::int32_t>(huge.run("draw"), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "draw: malformed argument packing");
  EXPECT_FALSE(AbiCall("generatorDelete").set("generator", handle).run().failed);
}

}  // namespace
