// The arena layout of src/bindings/abi.h, natively: the table describes the headers as they are,
// and a call packed the way engine.js packs it (from the table's names and offsets) gives what
// the core gives. tests/js/abi.test.mjs checks the JavaScript side against the same table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bindings/abi.h"
#include "core/attention.h"
#include "test_util.h"

namespace {

using attn::abi::Field;

const attn::abi::Call& call_named(const std::string& name) {
  for (const attn::abi::Call& c : attn::abi::describe().calls)
    if (name == c.name) return c;
  throw std::invalid_argument("no call " + name);
}

const Field& field_named(const std::vector<Field>& fields, const std::string& name) {
  for (const Field& f : fields)
    if (name == f.name) return f;
  throw std::invalid_argument("no field " + name);
}

// Writes/reads a header field by its name in the table, as engine.js does.
template <typename T>
void set(std::uintptr_t header, const std::vector<Field>& fields, const std::string& name, T value) {
  std::memcpy(reinterpret_cast<char*>(header) + field_named(fields, name).offset, &value, sizeof value);
}
template <typename T>
T get(std::uintptr_t header, const std::vector<Field>& fields, const std::string& name) {
  T value;
  std::memcpy(&value, reinterpret_cast<const char*>(header) + field_named(fields, name).offset, sizeof value);
  return value;
}

TEST(AbiLayout, HeaderFieldsAreDistinctAlignedAndInsideTheirHeader) {
  const attn::abi::Description& d = attn::abi::describe();
  auto check = [](std::vector<Field> fields, size_t header_size, const char* what) {
    std::set<std::string> names;
    std::set<size_t> offsets;
    for (const Field& f : fields) {
      SCOPED_TRACE(std::string(what) + "." + f.name);
      const std::string type = f.type;
      EXPECT_TRUE(names.insert(f.name).second) << "duplicate name";
      EXPECT_TRUE(offsets.insert(f.offset).second) << "duplicate offset";
      EXPECT_EQ(f.offset % 4, 0u);
      const size_t bytes = std::stoul(type.substr(1)) / 8;
      EXPECT_LE(f.offset + bytes, header_size);
      EXPECT_TRUE(type[0] == 'i' || type[0] == 'u' || type[0] == 'f') << type;
    }
  };
  std::vector<Field> call_fields = d.sections;
  call_fields.insert(call_fields.end(), d.options.begin(), d.options.end());
  check(call_fields, sizeof(attn::abi::CallHeader), "call");
  check(d.result, sizeof(attn::abi::ResultHeader), "result");
  EXPECT_STREQ(field_named(d.options, "temperature").type, "f32");
  EXPECT_STREQ(field_named(d.options, "heads").type, "i32");
  EXPECT_STREQ(field_named(d.options, "seedHigh").type, "u32");
}

TEST(AbiLayout, KernelNamesAreIndexedByEnumValueAndAttendResultsCoverTheTrace) {
  const attn::abi::Description& d = attn::abi::describe();
  ASSERT_EQ(d.kernels.size(), 5u);
  for (size_t k = 0; k < d.kernels.size(); ++k)
    EXPECT_EQ(attn::parse_kernel(d.kernels[k]), static_cast<attn::Kernel>(k));
  EXPECT_EQ(std::vector<std::string>(d.scale_modes.begin(), d.scale_modes.end()),
            (std::vector<std::string>{"inverseSqrtHeadSize", "none", "factor"}));
  // Every Trace tensor, in the names the JS API uses (head_outputs → headOutputs).
  std::vector<std::string> want;
  for (std::string name : attn_test::trace_tensor_names())
    want.push_back(name == "head_outputs" ? "headOutputs" : name);
  auto strings = [](const std::vector<const char*>& list) {
    return std::vector<std::string>(list.begin(), list.end());
  };
  EXPECT_EQ(strings(call_named("attend").results), want);
  EXPECT_EQ(strings(call_named("project").results), (std::vector<std::string>{"y"}));
  EXPECT_EQ(strings(call_named("attend").flags), (std::vector<std::string>{"keyPadding", "dropoutKeep"}));
}

// Packs a call as engine.js does: tensors (rank, dims; rank 0 when absent), then flags.
struct Packed {
  std::vector<float> floats;
  std::vector<std::int32_t> ints;
  std::vector<std::uint8_t> bytes;

  void tensor(const attn_test::Owned* t) {
    if (!t) {
      ints.push_back(0);
      return;
    }
    ints.push_back(static_cast<int>(t->shape.size()));
    ints.insert(ints.end(), t->shape.begin(), t->shape.end());
    floats.insert(floats.end(), t->data.begin(), t->data.end());
  }
  void flags(const std::vector<int>& shape, const std::vector<std::uint8_t>& data) {
    ints.push_back(static_cast<int>(shape.size()));
    ints.insert(ints.end(), shape.begin(), shape.end());
    bytes.insert(bytes.end(), data.begin(), data.end());
  }
  std::uintptr_t write() const {
    const attn::abi::Description& d = attn::abi::describe();
    const std::uintptr_t header = attn::abi::prepare(static_cast<int>(floats.size()), static_cast<int>(ints.size()),
                                                     static_cast<int>(bytes.size()));
    auto section = [&](const char* name) {
      return reinterpret_cast<void*>(get<std::uintptr_t>(header, d.sections, name));
    };
    if (!floats.empty()) std::memcpy(section("floats"), floats.data(), floats.size() * sizeof(float));
    if (!ints.empty()) std::memcpy(section("ints"), ints.data(), ints.size() * sizeof(std::int32_t));
    if (!bytes.empty()) std::memcpy(section("bytes"), bytes.data(), bytes.size());
    return header;
  }
};

// The result's tensors by name, read through the table.
std::vector<std::pair<std::string, attn::Tensor>> read_result(std::uintptr_t header, const std::string& call) {
  const attn::abi::Description& d = attn::abi::describe();
  std::vector<std::pair<std::string, attn::Tensor>> out;
  if (get<std::int32_t>(header, d.result, "failed")) return out;
  const auto* data = reinterpret_cast<const float*>(get<std::uintptr_t>(header, d.result, "data"));
  const auto* layout = reinterpret_cast<const std::int32_t*>(get<std::uintptr_t>(header, d.result, "layout"));
  const int layout_length = get<std::int32_t>(header, d.result, "layoutLength");
  for (int at = 0; at < layout_length;) {
    attn::Tensor t;
    const std::string name = call_named(call).results.at(static_cast<size_t>(layout[at]));
    const int rank = layout[at + 1];
    t.shape.assign(layout + at + 2, layout + at + 2 + rank);
    at += 2 + rank;
    const long long n = attn_test::element_count(t.shape);
    t.data.assign(data, data + n);
    data += n;
    out.emplace_back(name, t);
  }
  return out;
}

TEST(AbiCalls, AttendPackedByNameGivesTheCoresTrace) {
  std::mt19937 rng(3);
  const attn_test::Owned x = attn_test::random_tensor(rng, {2, 5, 4}), wq = attn_test::random_tensor(rng, {4, 4});
  const attn_test::Owned wk = attn_test::random_tensor(rng, {4, 4}), wv = attn_test::random_tensor(rng, {4, 6});
  Packed p;
  for (const auto& arg : call_named("attend").tensors) {
    const std::string name = arg.name;
    p.tensor(name == "x" ? &x : name == "wq" ? &wq : name == "wk" ? &wk : name == "wv" ? &wv : nullptr);
  }
  p.flags({5}, {1, 1, 0, 1, 1});  // keyPadding
  p.ints.push_back(0);            // dropoutKeep: not given
  const std::uintptr_t header = p.write();
  const auto& options = attn::abi::describe().options;
  set<std::int32_t>(header, options, "kernel", static_cast<std::int32_t>(attn::Kernel::kEigen));
  set<std::int32_t>(header, options, "heads", 2);
  set<std::int32_t>(header, options, "causal", 1);
  set<std::int32_t>(header, options, "scaleMode", 2);  // factor
  set<float>(header, options, "scale", 0.7f);
  set<float>(header, options, "temperature", 1.5f);
  set<std::int32_t>(header, options, "training", 0);
  set<std::int32_t>(header, options, "materialize", 1);
  const std::uintptr_t result = attn::abi::attend();
  ASSERT_EQ(get<std::int32_t>(result, attn::abi::describe().result, "failed"), 0) << attn::abi::last_error();
  EXPECT_EQ(get<std::int32_t>(result, attn::abi::describe().result, "kernel"), 1);
  EXPECT_EQ(get<std::int32_t>(result, attn::abi::describe().result, "batched"), 1);
  EXPECT_FLOAT_EQ(get<float>(result, attn::abi::describe().result, "scale"), 0.7f);

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
  const auto got = read_result(result, "attend");
  ASSERT_EQ(got.size(), 11u);
  for (const auto& [name, tensor] : got) {
    const attn::Tensor& w = attn_test::trace_tensor(want, name == "headOutputs" ? "head_outputs" : name);
    EXPECT_EQ(tensor.shape, w.shape) << name;
    EXPECT_EQ(tensor.data, w.data) << name;
  }
}

TEST(AbiCalls, AttendBackwardPackedByNameGivesTheCoresGradients) {
  std::mt19937 rng(5);
  const attn_test::Owned x = attn_test::random_tensor(rng, {4, 3}), wqkv = attn_test::random_tensor(rng, {6, 3});
  const attn_test::Owned g = attn_test::random_tensor(rng, {4, 2});
  const attn::abi::Call& call = call_named("attendBackward");
  EXPECT_EQ(std::string(call.tensors.back().name), "gradOutput");
  Packed p;
  for (const auto& arg : call.tensors) {
    const std::string name = arg.name;
    p.tensor(name == "x" ? &x : name == "wqkv" ? &wqkv : name == "gradOutput" ? &g : nullptr);
  }
  p.ints.push_back(0);  // keyPadding
  p.ints.push_back(0);  // dropoutKeep
  const std::uintptr_t header = p.write();
  const auto& options = attn::abi::describe().options;
  set<std::int32_t>(header, options, "kernel", static_cast<std::int32_t>(attn::Kernel::kSimd));
  set<std::int32_t>(header, options, "heads", 2);
  set<std::int32_t>(header, options, "causal", 1);
  set<std::int32_t>(header, options, "scaleMode", 0);
  set<float>(header, options, "temperature", 1.0f);
  set<std::int32_t>(header, options, "training", 0);
  set<std::int32_t>(header, options, "materialize", 1);
  const std::uintptr_t result = attn::abi::attend_backward();
  ASSERT_EQ(get<std::int32_t>(result, attn::abi::describe().result, "failed"), 0) << attn::abi::last_error();

  attn::Inputs in;
  in.x = x.view();
  in.wqkv = wqkv.view();
  attn::Options opt;
  opt.kernel = attn::Kernel::kSimd;
  opt.heads = 2;
  opt.causal = true;
  const attn::Gradients want = attn::attend_backward(in, opt, g.view());
  const auto got = read_result(result, "attendBackward");
  ASSERT_EQ(got.size(), 2u) << "x and wqkv were given";
  EXPECT_EQ(got[0].first, "x");
  EXPECT_EQ(got[0].second.data, want.x.data);
  EXPECT_EQ(got[1].first, "wqkv");
  EXPECT_EQ(got[1].second.shape, (std::vector<int>{6, 3}));
  EXPECT_EQ(got[1].second.data, want.wqkv.data);

  // Without projections the output is x's shape (4, 3): g (4, 2) is refused, naming gradOutput.
  Packed q;
  for (const auto& arg : call.tensors) {
    const std::string name = arg.name;
    q.tensor(name == "x" ? &x : name == "gradOutput" ? &g : nullptr);
  }
  q.ints.push_back(0);
  q.ints.push_back(0);
  set<std::int32_t>(q.write(), options, "heads", 1);
  const std::uintptr_t failed = attn::abi::attend_backward();
  EXPECT_EQ(get<std::int32_t>(failed, attn::abi::describe().result, "failed"), 1);
  EXPECT_NE(attn::abi::last_error().find("gradOutput: expected shape (4, 3)"), std::string::npos)
      << attn::abi::last_error();
}

TEST(AbiCalls, ProjectAndAveragingPackedByNameGiveTheCoresResults) {
  std::mt19937 rng(4);
  const attn_test::Owned x = attn_test::random_tensor(rng, {3, 4}), w = attn_test::random_tensor(rng, {4, 2});
  const attn_test::Owned b = attn_test::random_tensor(rng, {2});
  Packed p;
  p.tensor(&x);
  p.tensor(&w);
  p.tensor(&b);
  p.write();
  const auto y = read_result(attn::abi::project(), "project");
  ASSERT_EQ(y.size(), 1u) << attn::abi::last_error();
  EXPECT_EQ(y[0].first, "y");
  EXPECT_EQ(y[0].second.data, attn::linear(x.view(), w.view(), b.view()).data);

  Packed a;
  a.tensor(&x);
  a.write();
  const auto averaged = read_result(attn::abi::averaging(), "averaging");
  ASSERT_EQ(averaged.size(), 6u) << attn::abi::last_error();
  EXPECT_EQ(averaged[0].first, "loop");
  EXPECT_EQ(averaged[0].second.data, attn::causal_average(x.view()).loop.data);
}

TEST(AbiCalls, MalformedPackingFailsNamingTheCallAndTheNextCallAnswers) {
  const auto& result = attn::abi::describe().result;
  Packed short_ints;  // x's rank and one dim, then nothing
  short_ints.ints = {2, 3};
  short_ints.write();
  EXPECT_EQ(get<std::int32_t>(attn::abi::attend(), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "attend: malformed argument packing");

  Packed too_few_floats;  // (3, 4) needs 12 floats
  too_few_floats.ints = {2, 3, 4, 0, 0};
  too_few_floats.floats.assign(11, 0.0f);
  too_few_floats.write();
  EXPECT_EQ(get<std::int32_t>(attn::abi::project(), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "project: malformed argument packing");

  Packed left_over;  // an extra int after the last argument
  const attn_test::Owned x = attn_test::filled({2, 2}, 1.0f);
  left_over.tensor(&x);
  left_over.ints.push_back(7);
  left_over.write();
  EXPECT_EQ(get<std::int32_t>(attn::abi::averaging(), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "averaging: malformed argument packing");

  // A core error comes through with its argument name.
  Packed bad_w;
  const attn_test::Owned w = attn_test::filled({3, 2}, 1.0f);
  bad_w.tensor(&x);
  bad_w.tensor(&w);
  bad_w.tensor(nullptr);
  bad_w.write();
  EXPECT_EQ(get<std::int32_t>(attn::abi::project(), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error().rfind("w: expected shape (2, 2)", 0), 0u) << attn::abi::last_error();

  Packed one_dim;
  const attn_test::Owned v = attn_test::filled({3}, 1.0f);
  one_dim.tensor(&v);
  one_dim.write();
  EXPECT_EQ(get<std::int32_t>(attn::abi::averaging(), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error().rfind("x: expected 2 or 3 dimensions", 0), 0u) << attn::abi::last_error();

  Packed good;
  good.tensor(&x);
  good.write();
  EXPECT_EQ(get<std::int32_t>(attn::abi::averaging(), result, "failed"), 0);
}

TEST(AbiCalls, AnEmptyShapeIsEmptyHoweverLargeItsOtherDims) {
  // tests/fuzz F7: (2^31 − 1, 2^31 − 1, 0) is torch's empty tensor, not a malformed packing.
  const auto& result = attn::abi::describe().result;
  const int handle = attn::abi::generator_create(1);
  ASSERT_GT(handle, 0);
  Packed empty;
  empty.ints = {0, 3, 2147483647, 2147483647, 0};  // no input tensor; the shape
  empty.write();
  const std::uintptr_t drawn = attn::abi::draw(handle, 0, 0, 0, 0);  // rand
  EXPECT_EQ(get<std::int32_t>(drawn, result, "failed"), 0) << attn::abi::last_error();
  EXPECT_EQ(get<std::int32_t>(drawn, result, "dataLength"), 0);
  Packed huge;
  huge.ints = {0, 3, 2147483647, 2147483647, 1};  // 2^62 elements: malformed still
  huge.write();
  EXPECT_EQ(get<std::int32_t>(attn::abi::draw(handle, 0, 0, 0, 0), result, "failed"), 1);
  EXPECT_EQ(attn::abi::last_error(), "draw: malformed argument packing");
  attn::abi::generator_delete(handle);
}

// ---------------------------------------------------------------------------------------------
// Models through the ABI, natively: what engine.js does, call by call.

void put_tokens(const std::vector<int>& tokens, const std::vector<int>& targets) {
  auto* in = reinterpret_cast<std::int32_t*>(attn::abi::model_input(static_cast<int>(tokens.size())));
  std::copy(tokens.begin(), tokens.end(), in);
  if (!targets.empty())
    std::copy(targets.begin(), targets.end(), reinterpret_cast<std::int32_t*>(attn::abi::model_input_targets()));
}

attn::abi::ModelArgs small_model() {
  attn::abi::ModelArgs a;
  a.vocab_size = 7, a.context_length = 4, a.layers = 1, a.heads = 2, a.width = 4, a.bias = 1, a.mlp = 1;
  a.layer_norm = 1, a.dropout = 0, a.seed = 3;
  return a;
}

TEST(AbiModel, StepEvaluateExportAndLoadBackByHandle) {
  const int handle = attn::abi::model_create(small_model());
  ASSERT_GT(handle, 0) << attn::abi::last_error();
  EXPECT_EQ(attn::abi::model_steps(handle), 0);
  put_tokens({1, 2, 3, 4, 5, 6, 0, 1}, {2, 3, 4, 5, 6, 0, 1, -1});
  attn::abi::StepArgs args;
  args.batch = 2, args.context = 4, args.lr = 1e-2, args.warmup = 2, args.decay_steps = 10;
  const attn::abi::StepReport r = attn::abi::model_step(handle, args);
  ASSERT_EQ(r.failed, 0) << attn::abi::last_error();
  EXPECT_EQ(r.step, 1);
  EXPECT_DOUBLE_EQ(r.lr, 1e-2 * 1 / 3);  // nanoGPT's warmup: lr · (it + 1) / (warmup + 1)
  EXPECT_GT(r.loss, 0);
  const attn::abi::EvalReport e = attn::abi::model_evaluate(handle, 2, 4);
  ASSERT_EQ(e.failed, 0) << attn::abi::last_error();
  EXPECT_GE(e.accuracy, 0);
  EXPECT_LE(e.accuracy, 1);

  const double bytes = attn::abi::model_export(handle);
  ASSERT_GT(bytes, 8);
  const std::uintptr_t file = attn::abi::model_export_data();
  const std::uintptr_t header = attn::abi::prepare(0, 0, static_cast<int>(bytes));
  std::memcpy(reinterpret_cast<void*>(get<std::uintptr_t>(header, attn::abi::describe().sections, "bytes")),
              reinterpret_cast<const void*>(file), static_cast<size_t>(bytes));
  const int loaded = attn::abi::model_load(attn::abi::ModelArgs{});  // every field from the metadata
  ASSERT_GT(loaded, 0) << attn::abi::last_error();
  const attn::abi::ModelArgs c = attn::abi::model_config(loaded);
  EXPECT_EQ(c.vocab_size, 7);
  EXPECT_EQ(c.heads, 2);
  const auto table = attn::abi::model_param_table(loaded);
  ASSERT_FALSE(table.empty());
  const double total = table.back().offset + table.back().size;
  const auto* a = reinterpret_cast<const float*>(attn::abi::model_params(handle));
  const auto* b = reinterpret_cast<const float*>(attn::abi::model_params(loaded));
  EXPECT_TRUE(std::equal(a, a + static_cast<size_t>(total), b));

  // setParams: a NaN staged is refused and changes nothing.
  auto* stage = reinterpret_cast<float*>(attn::abi::model_stage(loaded));
  stage[static_cast<size_t>(table[1].offset)] = std::nanf("");
  EXPECT_EQ(attn::abi::model_commit(loaded), 0);
  EXPECT_EQ(attn::abi::last_error().rfind("transformer.wpe.weight: every value must be finite", 0), 0u)
      << attn::abi::last_error();
  EXPECT_TRUE(
      std::equal(a, a + static_cast<size_t>(total), reinterpret_cast<const float*>(attn::abi::model_params(loaded))));

  attn::abi::model_delete(loaded);
  attn::abi::model_delete(handle);
  EXPECT_EQ(attn::abi::model_steps(handle), -1);
  EXPECT_EQ(attn::abi::last_error(), "model: this model was disposed");
  EXPECT_EQ(attn::abi::model_step(handle, args).failed, 1);
}

TEST(AbiModel, ErrorsComeBackNamedAndAFileWithoutMetadataNeedsOnlyTheHeadCount) {
  attn::abi::ModelArgs bad = small_model();
  bad.heads = 3;
  EXPECT_EQ(attn::abi::model_create(bad), 0);
  EXPECT_EQ(attn::abi::last_error().rfind("n_head: 3 must divide", 0), 0u) << attn::abi::last_error();

  const int handle = attn::abi::model_create(small_model());
  put_tokens({1, 2, 3, 9}, {1, 2, 3, 4});
  attn::abi::StepArgs args;
  args.batch = 1, args.context = 4;
  EXPECT_EQ(attn::abi::model_step(handle, args).failed, 1);
  EXPECT_EQ(attn::abi::last_error().rfind("tokens[3]: 9", 0), 0u) << attn::abi::last_error();
  put_tokens({1, 2, 3, 4}, {1, 2, 3, 4});
  args.optimizer = "adam";
  EXPECT_EQ(attn::abi::model_step(handle, args).failed, 1);
  EXPECT_EQ(attn::abi::last_error().rfind("optimizer: expected 'adamw' or 'sgd'", 0), 0u);
  args.optimizer = "sgd";
  args.batch = 2;
  EXPECT_EQ(attn::abi::model_step(handle, args).failed, 1);
  EXPECT_EQ(attn::abi::last_error().rfind("batch:", 0), 0u) << attn::abi::last_error();
  args.batch = 1, args.warmup = 5, args.decay_steps = 3;
  EXPECT_EQ(attn::abi::model_step(handle, args).failed, 1);
  EXPECT_EQ(attn::abi::last_error().rfind("decaySteps: expected more than warmup = 5", 0), 0u);
  EXPECT_EQ(attn::abi::model_steps(handle), 0);
  attn::abi::model_delete(handle);

  // torch's own state_dict file records no config: its tensors give all of it but the head
  // count, and the error says to pass that.
  std::ifstream in(std::string(ATTN_FIXTURES_DIR) + "/training/gpt_tiny_torch113.safetensors", std::ios::binary);
  const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(file.empty());
  auto write_file = [&] {
    const std::uintptr_t header = attn::abi::prepare(0, 0, static_cast<int>(file.size()));
    std::memcpy(reinterpret_cast<void*>(get<std::uintptr_t>(header, attn::abi::describe().sections, "bytes")),
                file.data(), file.size());
  };
  write_file();
  EXPECT_EQ(attn::abi::model_load(attn::abi::ModelArgs{}), 0);
  EXPECT_EQ(attn::abi::last_error().rfind("heads: the file does not record n_head", 0), 0u) << attn::abi::last_error();
  attn::abi::ModelArgs heads;
  heads.heads = 2;
  write_file();
  const int inferred = attn::abi::model_load(heads);
  ASSERT_GT(inferred, 0) << attn::abi::last_error();
  const attn::abi::ModelArgs seen = attn::abi::model_config(inferred);
  EXPECT_EQ(seen.vocab_size, 11);  // the fixture's config, from the tensors
  EXPECT_EQ(seen.context_length, 8);
  EXPECT_EQ(seen.layers, 2);
  EXPECT_EQ(seen.heads, 2);
  EXPECT_EQ(seen.width, 8);
  EXPECT_EQ(seen.bias, 1);
  EXPECT_EQ(seen.mlp, 1);
  EXPECT_EQ(seen.layer_norm, 1);
  attn::abi::model_delete(inferred);
  attn::abi::ModelArgs tiny;  // or all of it given (overrides win over what the tensors say)
  tiny.vocab_size = 11, tiny.context_length = 8, tiny.layers = 2, tiny.heads = 2,
  tiny.width = 8;  // bias: nanoGPT's default
  write_file();
  const int loaded = attn::abi::model_load(tiny);
  ASSERT_GT(loaded, 0) << attn::abi::last_error();
  attn::abi::model_delete(loaded);
  tiny.width = 16;  // a wrong override: the tensors' shapes refuse it, naming the tensor
  write_file();
  EXPECT_EQ(attn::abi::model_load(tiny), 0);
  EXPECT_NE(attn::abi::last_error().find("shape (11, 8), expected (11, 16)"), std::string::npos)
      << attn::abi::last_error();
}

}  // namespace
