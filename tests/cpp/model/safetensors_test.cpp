// safetensors import and export (src/model/safetensors.h): round trips, the files the fixture
// script wrote by hand from the format's spec (F32, F16, BF16, torch 1.13's full state_dict),
// byte-for-byte agreement of our export with that script's writer, a table of hostile files each
// with its expected error, and a deterministic fuzz loop that must only ever see attn::Error.
//
// Legend: V vocab_size, T block_size, L n_layer, C n_embd; a "spec" is one tensor as a file holds
// it (name, dtype, shape, raw little-endian bytes).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "model/checkpoint.h"
#include "model/safetensors.h"
#include "test_util.h"
#include "training_fixtures.h"

namespace attn::model {
namespace {

using attn_test::json;
using Bytes = std::vector<std::uint8_t>;

using attn_test::config_from_json;

// The fixture script's tiny config (gpt_tiny*.safetensors).
ModelConfig tiny_config() { return attn_test::config_of(11, 8, 2, 2, 8); }

// ---------------------------------------------------------------------------------------------
// A small writer of our own, to build hostile files.

Bytes raw_file(std::uint64_t header_length, const std::string& header, const Bytes& buffer) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(header_length >> (8 * i));
  bytes += header;
  bytes.append(buffer.begin(), buffer.end());
  return Bytes(bytes.begin(), bytes.end());
}
Bytes raw_file(const std::string& header, const Bytes& buffer) { return raw_file(header.size(), header, buffer); }
Bytes raw_file(const std::string& header, std::size_t buffer_bytes) { return raw_file(header, Bytes(buffer_bytes, 0)); }

struct Spec {
  std::string name;
  std::string dtype;
  std::vector<long long> shape;
  Bytes data;
};

Bytes build(const std::vector<Spec>& specs, const std::string& metadata = "") {
  std::string header = "{";
  if (!metadata.empty()) header += "\"__metadata__\":" + metadata;
  Bytes buffer;
  for (const Spec& s : specs) {
    if (header.size() > 1) header += ",";
    header += json(s.name).dump() + ":{\"dtype\":\"" + s.dtype + "\",\"shape\":[";
    for (std::size_t i = 0; i < s.shape.size(); ++i) header += (i ? "," : "") + std::to_string(s.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(buffer.size()) + "," +
              std::to_string(buffer.size() + s.data.size()) + "]}";
    buffer.insert(buffer.end(), s.data.begin(), s.data.end());
  }
  return raw_file(header + "}", buffer);
}

// Every tensor of a (valid) file as specs, in offset order.
std::vector<Spec> specs_of(const Bytes& file) {
  const SafetensorsHeader h = parse_safetensors(file.data(), file.size());
  std::vector<Spec> out;
  for (const TensorRecord& t : h.tensors) {
    Spec s{t.name, dtype_name(t.dtype), {}, {}};
    for (std::uint64_t d : t.shape) s.shape.push_back(static_cast<long long>(d));
    s.data.assign(file.begin() + static_cast<std::ptrdiff_t>(h.buffer_offset + t.begin),
                  file.begin() + static_cast<std::ptrdiff_t>(h.buffer_offset + t.end));
    out.push_back(std::move(s));
  }
  return out;
}

Spec& spec_named(std::vector<Spec>& specs, const std::string& name) {
  for (Spec& s : specs)
    if (s.name == name) return s;
  throw std::runtime_error("no spec " + name);
}

Bytes f32_bytes(const std::vector<float>& values) {
  Bytes out(values.size() * 4);
  std::memcpy(out.data(), values.data(), out.size());  // little-endian hosts (x86, WASM)
  return out;
}

const Bytes& tiny_file() {
  static const Bytes file = attn_test::read_training_file("gpt_tiny.safetensors");
  return file;
}

// ---------------------------------------------------------------------------------------------
// Round trips and the fixture files

TEST(Safetensors, ExportThenImportGivesTheSameFloatsForEveryVariant) {
  for (int variant = 0; variant < 4; ++variant) {
    ModelConfig c = tiny_config();
    c.bias = variant != 1;
    c.mlp = variant != 2;
    c.layer_norm = variant != 3;
    const ParamTable table(c);
    std::vector<float> params(table.total());
    init_params(params.data(), table, seeded_fill(40 + variant));
    for (bool lm_head : {true, false}) {
      for (bool masks : {false, true}) {
        ExportOptions options;
        options.lm_head = lm_head;
        options.causal_mask_buffers = masks;
        const Bytes file = export_safetensors(table, params.data(), options);
        EXPECT_EQ(import_safetensors(table, file.data(), file.size()), params) << variant << lm_head << masks;
        const SafetensorsHeader h = parse_safetensors(file.data(), file.size());
        EXPECT_EQ(h.header_size % 8, 0u);
        EXPECT_EQ(h.find("lm_head.weight") != nullptr, lm_head);
        EXPECT_EQ(h.find("transformer.h.1.attn.bias") != nullptr, masks);
        EXPECT_EQ(h.metadata.at("format"), "pt");
        EXPECT_EQ(h.metadata.at("n_head"), "2");
        EXPECT_EQ(h.metadata.at("mlp"), c.mlp ? "true" : "false");
      }
    }
  }
}

TEST(Safetensors, TheTensorsTellTheConfigButTheHeadCount) {
  const auto expect_inferred = [](const ModelConfig& c, const Bytes& file, const std::string& what) {
    const InferredConfig seen = infer_config(parse_safetensors(file.data(), file.size()));
    EXPECT_EQ(seen.vocab_size, c.vocab_size) << what;
    EXPECT_EQ(seen.block_size, c.block_size) << what;
    EXPECT_EQ(seen.n_layer, c.n_layer) << what;
    EXPECT_EQ(seen.n_embd, c.n_embd) << what;
    EXPECT_EQ(seen.bias, c.bias ? 1 : 0) << what;
    EXPECT_EQ(seen.mlp, c.mlp ? 1 : 0) << what;
    EXPECT_EQ(seen.layer_norm, c.layer_norm ? 1 : 0) << what;
  };
  for (int variant = 0; variant < 4; ++variant) {
    ModelConfig c = tiny_config();
    c.bias = variant != 1;
    c.mlp = variant != 2;
    c.layer_norm = variant != 3;
    if (variant == 2) c.n_layer = 3, c.block_size = 5, c.vocab_size = 7;
    const ParamTable table(c);
    std::vector<float> params(table.total(), 0.25f);
    for (bool lm_head : {true, false}) {
      for (bool masks : {false, true}) {
        ExportOptions options;
        options.lm_head = lm_head;
        options.causal_mask_buffers = masks;  // torch < 2's attn.bias buffers are not biases
        expect_inferred(c, export_safetensors(table, params.data(), options),
                        "variant " + std::to_string(variant) + (lm_head ? " lm_head" : "") + (masks ? " masks" : ""));
      }
    }
  }
  // The files torch wrote (save_file of a state_dict): no metadata, the same answers.
  const json fixture = attn_test::load_training_json("safetensors");
  for (const json& f : fixture.at("files")) {
    const std::string name = f.at("file");
    expect_inferred(config_from_json(f.at("config")), attn_test::read_training_file(name), name);
  }
  // Nothing to read from: every field unknown.
  const InferredConfig none = infer_config(SafetensorsHeader{});
  EXPECT_EQ(none.vocab_size, -1);
  EXPECT_EQ(none.n_layer, -1);
  EXPECT_EQ(none.bias, -1);
}

TEST(Safetensors, CausalMaskBufferIsTorchsTril) {
  const ModelConfig c = tiny_config();
  const ParamTable table(c);
  std::vector<float> params(table.total(), 0.5f);
  ExportOptions options;
  options.causal_mask_buffers = true;
  const Bytes file = export_safetensors(table, params.data(), options);
  const SafetensorsHeader h = parse_safetensors(file.data(), file.size());
  const TensorRecord* mask = h.find("transformer.h.0.attn.bias");
  ASSERT_NE(mask, nullptr);
  EXPECT_EQ(mask->shape, std::vector<std::uint64_t>({1, 1, 8, 8}));
  const std::vector<float> values = read_tensor(file.data(), file.size(), h, *mask);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(values[i * 8 + j], j <= i ? 1.0f : 0.0f);
}

TEST(Safetensors, FilesWrittenByHandFromTorchStateDictsLoadWithTorchsValues) {
  const json fixture = attn_test::load_training_json("safetensors");
  int files = 0;
  for (const json& f : fixture.at("files")) {
    const std::string name = f.at("file");
    const Bytes file = attn_test::read_training_file(name);
    ASSERT_EQ(file.size(), f.at("bytes").get<std::size_t>()) << name;
    const ParamTable table(config_from_json(f.at("config")));
    const std::vector<float> params = import_safetensors(table, file.data(), file.size());
    for (const auto& item : f.at("values").items()) {
      const std::vector<float> want = attn_test::json_floats(item.value());
      const ParamEntry& e = table.at(item.key());
      const std::vector<float> got(params.begin() + static_cast<std::ptrdiff_t>(e.offset),
                                   params.begin() + static_cast<std::ptrdiff_t>(e.offset + e.size));
      EXPECT_EQ(got, want) << name << " " << item.key();  // F16/BF16 → F32 is exact
    }
    ++files;
  }
  EXPECT_EQ(files, 5);
}

TEST(Safetensors, ExportIsByteForByteThePythonWritersFile) {
  for (const char* name : {"gpt_tiny.safetensors", "gpt_lean.safetensors"}) {
    const Bytes file = attn_test::read_training_file(name);
    const SafetensorsHeader h = parse_safetensors(file.data(), file.size());
    ModelConfig c;
    c.vocab_size = std::stoi(h.metadata.at("vocab_size"));
    c.block_size = std::stoi(h.metadata.at("block_size"));
    c.n_layer = std::stoi(h.metadata.at("n_layer"));
    c.n_head = std::stoi(h.metadata.at("n_head"));
    c.n_embd = std::stoi(h.metadata.at("n_embd"));
    c.bias = h.metadata.at("bias") == "true";
    c.mlp = h.metadata.at("mlp") == "true";
    c.layer_norm = h.metadata.at("layer_norm") == "true";
    const ParamTable table(c);
    const std::vector<float> params = import_safetensors(table, file.data(), file.size());
    EXPECT_EQ(export_safetensors(table, params.data()), file) << name;
  }
}

TEST(Safetensors, MetadataOptionsAreWrittenAndEscaped) {
  const ParamTable table(tiny_config());
  std::vector<float> params(table.total(), 1.0f);
  ExportOptions options;
  options.metadata["note"] = "quote \" backslash \\ newline \n é";
  options.metadata["format"] = "pt";
  const Bytes file = export_safetensors(table, params.data(), options);
  const SafetensorsHeader h = parse_safetensors(file.data(), file.size());
  EXPECT_EQ(h.metadata.at("note"), options.metadata["note"]);
  options.metadata["bad"] = std::string("\xff\xfe");
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { export_safetensors(table, params.data(), options); }, {"not valid UTF-8"}));
}

// ---------------------------------------------------------------------------------------------
// Hostile files: every one an attn::Error naming the tensor or byte, never a crash.

const std::string kW = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}";

std::string entry(const std::string& name, const std::string& body) { return json(name).dump() + ":{" + body + "}"; }

struct Hostile {
  std::string name;
  std::function<Bytes()> make;
  std::vector<std::string> message;  // substrings of the expected error
  bool tiny = true;                  // import into tiny_config (else the lean fixture's config)
};

std::vector<Hostile> hostile_files() {
  std::vector<Hostile> h;
  auto add = [&](const std::string& name, std::function<Bytes()> make, std::vector<std::string> message) {
    h.push_back({name, std::move(make), std::move(message)});
  };
  auto tensors = [](const std::function<void(std::vector<Spec>&)>& edit) {
    return [edit] {
      std::vector<Spec> specs = specs_of(tiny_file());
      edit(specs);
      return build(specs);
    };
  };
  auto erase = [](std::vector<Spec>& specs, const std::string& name) {
    for (auto it = specs.begin(); it != specs.end(); ++it)
      if (it->name == name) return void(specs.erase(it));
  };
  // 1. the header length
  add("EmptyFile", [] { return Bytes(); }, {"file is 0 bytes, shorter than the 8-byte header length"});
  add("SevenBytes", [] { return Bytes(7, 0); }, {"file is 7 bytes"});
  add("HeaderLengthZero", [] { return raw_file(0, "", {}); }, {"header is empty"});
  add("HeaderLengthPastEndOfFile", [] { return raw_file(100, "{}", Bytes(8)); },
      {"header length 100 (file bytes 0-7) runs past the end of the 18-byte file"});
  add("HeaderLengthAboveTheCap", [] { return raw_file(100000001, "{}", {}); },
      {"header length 100000001", "exceeds the 100000000-byte limit"});
  add("HeaderLength2To63", [] { return raw_file(1ULL << 63, kW, Bytes(16)); }, {"9223372036854775808", "exceeds"});
  add("HeaderLengthAllOnes", [] { return raw_file(~0ULL, kW, Bytes(16)); }, {"18446744073709551615", "exceeds"});
  add("AnHtmlPage",
      [] {
        const std::string page = "<!doctype html><p>Not found</p>";
        return Bytes(page.begin(), page.end());
      },
      {"not a safetensors file: it begins with text (\"<!doctyp…\")", "header's length in 8 bytes"});
  add("AGitLfsPointer",
      [] {
        const std::string p = "version https://git-lfs.github.com/spec/v1\noid sha256:0\n";
        return Bytes(p.begin(), p.end());
      },
      {"not a safetensors file: it begins with text (\"version "});
  // 2. the JSON
  add("HeaderStartsWithSpace", [] { return raw_file(" " + kW, 16); },
      {"header must begin with '{' at file byte 8, found byte 0x20"});
  add("HeaderIsAnArray", [] { return raw_file("[1, 2]", 0); }, {"found byte 0x5b"});
  add("TruncatedJson", [] { return raw_file("{\"w\":{\"dtype\":\"F32\"", 0); },
      {"header is not valid JSON", "file byte"});
  add("InvalidUtf8InName", [] { return raw_file("{\"w\xff\":{}}", 0); }, {"header is not valid JSON"});
  add("NulPaddingAfterJson", [] { return raw_file(kW + std::string(3, '\0'), 16); },
      {"header holds a NUL byte at file byte 65"});
  add("NulThenAPolyglotTail", [] { return raw_file(kW + std::string(1, '\0') + "<html>", 16); },
      {"header holds a NUL byte"});
  add("TrailingGarbageAfterJson", [] { return raw_file(kW + "x", 16); }, {"header is not valid JSON"});
  add("DuplicateTensorName",
      [] {
        return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]") + "," +
                            entry("w", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]") + "}",
                        8);
      },
      {"duplicate tensor name \"w\""});
  add("DuplicateKeyInEntry",
      [] {
        return raw_file(
            "{" + entry("w", "\"dtype\":\"F32\",\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[0,4]") + "}", 4);
      },
      {"tensor \"w\": duplicate key \"dtype\""});
  add("NestingTooDeep", [] { return raw_file("{" + entry("w", "\"shape\":[[1]]") + "}", 0); },
      {"tensor \"w\"", "nests deeper"});
  add("NestingHundredThousandDeep",
      [] { return raw_file("{\"w\":" + std::string(100000, '[') + std::string(100000, ']') + "}", 0); },
      {"tensor \"w\"", "nests deeper"});
  add("MoreThan16384Tensors",
      [] {
        std::string header = "{";
        for (int i = 0; i <= 16384; ++i) {
          header +=
              (i ? "," : "") + entry("t" + std::to_string(i), "\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]");
        }
        return raw_file(header + "}", 0);
      },
      {"more than 16384 tensors"});
  // 3. each entry
  add("EntryNotAnObject", [] { return raw_file("{\"w\":5}", 0); }, {"tensor \"w\": expected an object"});
  add("UnknownKeyInEntry",
      [] {
        return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"foo\":1") + "}", 4);
      },
      {"tensor \"w\": unexpected key \"foo\""});
  add("MissingDtype", [] { return raw_file("{" + entry("w", "\"shape\":[1],\"data_offsets\":[0,4]") + "}", 4); },
      {"tensor \"w\": missing dtype"});
  add("DtypeNotAString",
      [] { return raw_file("{" + entry("w", "\"dtype\":32,\"shape\":[1],\"data_offsets\":[0,4]") + "}", 4); },
      {"tensor \"w\": dtype must be a string"});
  add("DtypeUnknown",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F99\",\"shape\":[1],\"data_offsets\":[0,4]") + "}", 4); },
      {"tensor \"w\": dtype \"F99\" is not supported (F32, F16, BF16 for parameters"});
  add("DtypeF64NotSupportedForAParameter", tensors([](std::vector<Spec>& s) {
        Spec& w = spec_named(s, "transformer.wpe.weight");
        w.dtype = "F64";
        w.data.resize(w.data.size() * 2);
      }),
      {"tensor \"transformer.wpe.weight\": dtype F64 is not supported for a parameter (F32, F16, BF16)"});
  add("MissingShape", [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"data_offsets\":[0,4]") + "}", 4); },
      {"tensor \"w\": missing shape"});
  add("ShapeNotAnArray",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":4,\"data_offsets\":[0,4]") + "}", 4); },
      {"tensor \"w\": shape must be an array of non-negative integers"});
  add("ShapeNegative",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[-2,2],\"data_offsets\":[0,16]") + "}", 16); },
      {"shape must be an array of non-negative integers, got -2"});
  add("ShapeFraction",
      [] {
        return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[2.5,2],\"data_offsets\":[0,16]") + "}", 16);
      },
      {"got 2.5"});
  add("ShapeRankNine",
      [] {
        return raw_file(
            "{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]") + "}", 4);
      },
      {"tensor \"w\": shape has 9 dimensions; at most 8"});
  add("ShapeProductOverflows",
      [] {
        return raw_file(
            "{" + entry("w", "\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],\"data_offsets\":[0,16]") +
                "}",
            16);
      },
      {"shape (4294967296, 4294967296, 4294967296) of F32 needs more bytes than the 16-byte buffer holds"});
  add("ShapeBeyondUint64",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1e30],\"data_offsets\":[0,4]") + "}", 4); },
      {"shape must be an array of non-negative integers"});
  add("MissingDataOffsets", [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1]") + "}", 4); },
      {"tensor \"w\": missing data_offsets"});
  add("DataOffsetsOneValue",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]") + "}", 4); },
      {"data_offsets must be [begin, end], two non-negative integers, got [0]"});
  add("DataOffsetsNegative",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]") + "}", 4); },
      {"data_offsets must be [begin, end]"});
  add("DataOffsetsStrings",
      [] {
        return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[\"0\",\"4\"]") + "}", 4);
      },
      {"data_offsets must be [begin, end]"});
  add("DataOffsetsReversed",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]") + "}", 8); },
      {"tensor \"w\": data_offsets [8, 4] begin after end"});
  add("DataOffsetsPastBuffer", [] { return raw_file(kW, 12); }, {"data_offsets [0, 16) run past the 12-byte buffer"});
  add("DataOffsetsWrongSize",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,12]") + "}", 16); },
      {"data_offsets [0, 12) hold 12 bytes; shape (2, 2) of F32 needs 16"});
  add("F16SizeCountedAsF32",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,16]") + "}", 16); },
      {"hold 16 bytes; shape (2, 2) of F16 needs 8"});
  // 4. the offsets together
  add("OverlappingTensors",
      [] {
        return raw_file("{" + entry("a", "\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]") + "," +
                            entry("b", "\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]") + "}",
                        24);
      },
      {"tensors \"a\" [0, 16) and \"b\" [8, 24) overlap"});
  add("HoleBetweenTensors",
      [] {
        return raw_file("{" + entry("a", "\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]") + "," +
                            entry("b", "\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[12,20]") + "}",
                        20);
      },
      {"buffer bytes [8, 12)", "belong to no tensor"});
  add("BytesAfterTheLastTensor", [] { return raw_file(kW, 20); }, {"buffer bytes [16, 20)", "belong to no tensor"});
  add("BufferNotStartingAtZero",
      [] { return raw_file("{" + entry("w", "\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[4,20]") + "}", 20); },
      {"buffer bytes [0, 4)", "belong to no tensor"});
  add("MetadataNotAnObject", [] { return raw_file("{\"__metadata__\":[]}", 0); },
      {"__metadata__ must be an object mapping strings to strings"});
  add("MetadataValueNotAString", [] { return raw_file("{\"__metadata__\":{\"format\":1}}", 0); },
      {"__metadata__ \"format\" must be a string, got number"});
  // 5. values
  add("NanInF32", tensors([](std::vector<Spec>& s) {
        float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(spec_named(s, "transformer.wpe.weight").data.data() + 12, &nan, 4);
      }),
      {"tensor \"transformer.wpe.weight\": element 3 is nan", "every parameter must be finite"});
  add("InfInF16",
      [] {
        Bytes one_inf = {0x00, 0x7c};  // F16 +inf
        std::vector<Spec> specs = specs_of(tiny_file());
        Spec& ln = spec_named(specs, "transformer.ln_f.weight");
        ln.dtype = "F16";
        ln.data.assign(16, 0);
        ln.data[10] = one_inf[0], ln.data[11] = one_inf[1];
        return build(specs);
      },
      {"tensor \"transformer.ln_f.weight\": element 5 is inf"});
  add("MinusInfInBF16",
      [] {
        std::vector<Spec> specs = specs_of(tiny_file());
        Spec& b = spec_named(specs, "transformer.ln_f.bias");
        b.dtype = "BF16";
        b.data.assign(16, 0);
        b.data[0] = 0x80, b.data[1] = 0xff;  // BF16 −inf
        return build(specs);
      },
      {"tensor \"transformer.ln_f.bias\": element 0 is -inf"});
  // 6. against the model
  add("MissingTensor", tensors([erase](std::vector<Spec>& s) { erase(s, "transformer.h.1.ln_2.bias"); }),
      {"missing 1 tensor: transformer.h.1.ln_2.bias"});
  add("NeitherWteNorLmHead", tensors([erase](std::vector<Spec>& s) {
        erase(s, "transformer.wte.weight");
        erase(s, "lm_head.weight");
      }),
      {"missing 1 tensor: transformer.wte.weight"});
  add("ExtraLayer", tensors([](std::vector<Spec>& s) {
        s.push_back({"transformer.h.2.ln_1.weight", "F32", {8}, Bytes(32, 0)});
      }),
      {"unexpected tensor \"transformer.h.2.ln_1.weight\": not a parameter of this model (the model has n_layer = 2)"});
  add("UnknownTensorWithControlBytes", tensors([](std::vector<Spec>& s) {
        s.push_back({std::string("evil\x01name"), "F32", {1}, Bytes(4, 0)});
      }),
      {"unexpected tensor \"evil\\u0001name\""});
  add("UnknownTensorWithAMegabyteName", tensors([](std::vector<Spec>& s) {
        s.push_back({std::string(1000000, 'a'), "F32", {1}, Bytes(4, 0)});
      }),
      {"unexpected tensor \"aaaa", "… (1000000 bytes)"});
  add("MisshapedWte", tensors([](std::vector<Spec>& s) {
        Spec& w = spec_named(s, "transformer.wte.weight");
        w.shape = {11, 7};
        w.data.resize(11 * 7 * 4);
      }),
      {"tensor \"transformer.wte.weight\": shape (11, 7), expected (11, 8)"});
  add("MisshapedBiasAsMatrix", tensors([](std::vector<Spec>& s) {
        spec_named(s, "transformer.h.0.attn.c_attn.bias").shape = {24, 1};
      }),
      {"tensor \"transformer.h.0.attn.c_attn.bias\": shape (24, 1), expected (24,)"});
  add("LmHeadDiffersFromWte", tensors([](std::vector<Spec>& s) { spec_named(s, "lm_head.weight").data[21] ^= 0x01; }),
      {"lm_head.weight differs from transformer.wte.weight at element 5", "they must be equal"});
  add("LmHeadMisshaped", tensors([](std::vector<Spec>& s) {
        Spec& w = spec_named(s, "lm_head.weight");
        w.shape = {8, 11};
      }),
      {"tensor \"lm_head.weight\": shape (8, 11), expected (11, 8)"});
  Hostile lean{"MlpTensorInAttentionOnlyModel",
               [] {
                 std::vector<Spec> specs = specs_of(attn_test::read_training_file("gpt_lean.safetensors"));
                 specs.push_back({"transformer.h.0.mlp.c_fc.weight", "F32", {32, 8}, Bytes(32 * 8 * 4, 0)});
                 return build(specs);
               },
               {"unexpected tensor \"transformer.h.0.mlp.c_fc.weight\"", "(the model has mlp = false)"},
               false};
  h.push_back(lean);
  Hostile nobias{"BiasInBiasFreeModel",
                 [] {
                   std::vector<Spec> specs = specs_of(attn_test::read_training_file("gpt_lean.safetensors"));
                   specs.push_back({"transformer.h.0.attn.c_proj.bias", "F32", {8}, Bytes(32, 0)});
                   return build(specs);
                 },
                 {"unexpected tensor \"transformer.h.0.attn.c_proj.bias\"", "(the model has bias = false)"},
                 false};
  h.push_back(nobias);
  return h;
}

// gtest prints a failing parameter with this (found by ADL) instead of raw bytes.
void PrintTo(const Hostile& h, std::ostream* os) { *os << h.name; }

class HostileFile : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileFile, IsRefusedWithAnErrorNamingTheProblem) {
  const Hostile& c = GetParam();
  const Bytes file = c.make();
  ModelConfig config = tiny_config();
  if (!c.tiny) {
    config.vocab_size = 13, config.block_size = 6, config.n_layer = 3, config.n_head = 4;
    config.bias = config.mlp = config.layer_norm = false;
  }
  const ParamTable table(config);
  std::vector<std::string> message = c.message;
  message.insert(message.begin(), "safetensors: ");
  try {
    import_safetensors(table, file.data(), file.size());
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    for (const std::string& s : message) {
      EXPECT_NE(what.find(s), std::string::npos) << "\"" << what << "\" lacks \"" << s << "\"";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-attn::Error: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Table, HostileFile, ::testing::ValuesIn(hostile_files()),
                         [](const ::testing::TestParamInfo<Hostile>& info) { return info.param.name; });

TEST(Safetensors, TheHostileTableHasAtLeastThirtyKinds) { EXPECT_GE(hostile_files().size(), 30u); }

TEST(Safetensors, MaskBuffersOfAnyShapeAreIgnoredOnImport) {
  std::vector<Spec> specs = specs_of(tiny_file());
  specs.push_back({"transformer.h.0.attn.bias", "F32", {1, 1, 3, 3}, f32_bytes(std::vector<float>(9, 1.0f))});
  specs.push_back({"transformer.h.1.attn.masked_bias", "F32", {}, f32_bytes({-1e4f})});
  specs.push_back({"transformer.h.7.attn.bias", "F16", {2}, Bytes(4, 0xff)});  // NaNs: never read
  const Bytes file = build(specs);
  const ParamTable table(tiny_config());
  EXPECT_EQ(import_safetensors(table, file.data(), file.size()),
            import_safetensors(table, tiny_file().data(), tiny_file().size()));
}

TEST(Safetensors, EmptyAndScalarTensorsParse) {
  const Bytes file = raw_file("{" + entry("e", "\"dtype\":\"F32\",\"shape\":[0,5],\"data_offsets\":[0,0]") + "," +
                                  entry("s", "\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[0,2]") + "}",
                              Bytes{0x80, 0x3f});  // BF16 1.0
  const SafetensorsHeader h = parse_safetensors(file.data(), file.size());
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(read_tensor(file.data(), file.size(), h, *h.find("s")), std::vector<float>({1.0f}));
  EXPECT_TRUE(read_tensor(file.data(), file.size(), h, *h.find("e")).empty());
}

TEST(Gpt2Config, DeeplyNestedValuesAreNamedByKindWithoutRecursing) {
  // tests/fuzz F9: config.json's messages printed the value with dump(), one recursion per level,
  // and a value nested 10^5 deep ran off the stack (under ASan natively; WASM's stack is smaller).
  // (A safetensors header deeper than {name: {key: [values]}} is refused before any message.)
  const int depth = 100000;
  const std::string deep = std::string(depth, '[') + "1" + std::string(depth, ']');
  const std::string deep_object = [&] {
    std::string s;
    for (int i = 0; i < depth; ++i) s += "{\"a\":";
    return s + "1" + std::string(depth, '}');
  }();
  using attn_test::ThrowsNaming;
  EXPECT_TRUE(ThrowsNaming([&] { parse_hf_config("{\"n_head\":" + deep + "}"); },
                           {"config.json: n_head must be a whole number, got an array of 1 values"}));
  EXPECT_TRUE(ThrowsNaming([&] { parse_hf_config("{\"model_type\":" + deep_object + "}"); },
                           {"config.json: model_type an object of 1 keys"}));
  EXPECT_TRUE(ThrowsNaming([&] { parse_hf_config("{\"architectures\":[\"GPT2LMHeadModel\"," + deep + "]}"); },
                           {"architectures an array of 2 values"}));
  // Short values are still shown as they are, long strings cut.
  EXPECT_TRUE(ThrowsNaming([&] { parse_hf_config("{\"n_head\":[\"3\",4]}"); }, {"got [\"3\",4]"}));
  EXPECT_TRUE(ThrowsNaming([&] { parse_hf_config("{\"n_head\":\"" + std::string(1000, 'x') + "\"}"); }, {"xxx…"}));
}

TEST(Safetensors, ExportRefusesFilesAboveTheCap) {
  ModelConfig c;
  c.vocab_size = 1;
  c.block_size = 16384;
  c.n_layer = 2;
  c.n_embd = 8;
  c.n_head = 1;
  const ParamTable table(c);
  std::vector<float> params(table.total(), 0.0f);
  ExportOptions options;
  options.causal_mask_buffers = true;  // 2 × 16384² floats = 2 GiB
  EXPECT_TRUE(attn_test::ThrowsNaming([&] { export_safetensors(table, params.data(), options); },
                                      {"export: the file would be", "drop causal_mask_buffers"}));
}

// ---------------------------------------------------------------------------------------------
// Fuzz: random byte flips, truncations and header-length edits of valid files. Deterministic
// (seeded); any outcome but success or attn::Error fails. The sanitizer build runs it too.

TEST(SafetensorsFuzz, MutatedFilesOnlyEverThrowAttnError) {
  const ParamTable table(tiny_config());
  const std::vector<Bytes> seeds = {tiny_file(), attn_test::read_training_file("gpt_tiny_f16.safetensors"),
                                    attn_test::read_training_file("gpt_tiny_torch113.safetensors")};
  std::mt19937 rng(20261123);
  int accepted = 0, refused = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Bytes file = seeds[iter % seeds.size()];
    const std::uint64_t header = 8 + (file[0] | file[1] << 8);
    const int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations && !file.empty(); ++m) {
      switch (rng() % 6) {
        case 0:  // flip a bit in the header (where the structure is)
        case 1: {
          const std::size_t at = rng() % std::min<std::uint64_t>(header, file.size());
          file[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
          break;
        }
        case 2:  // a random byte anywhere
          file[rng() % file.size()] = static_cast<std::uint8_t>(rng());
          break;
        case 3:  // truncate
          file.resize(rng() % file.size());
          break;
        case 4:  // a digit of the header changed (offsets, shapes)
        {
          const std::size_t at = 8 + rng() % (std::min<std::uint64_t>(header, file.size()) - 8 + 1);
          if (at < file.size() && file[at] >= '0' && file[at] <= '9')
            file[at] = static_cast<std::uint8_t>('0' + rng() % 10);
          break;
        }
        default:  // the header length itself
          if (file.size() >= 8) file[rng() % 8] = static_cast<std::uint8_t>(rng());
          break;
      }
    }
    try {
      import_safetensors(table, file.data(), file.size());
      ++accepted;
    } catch (const Error&) {
      ++refused;
    } catch (const std::exception& e) {
      FAIL() << "iteration " << iter << ": threw a non-attn::Error: " << e.what();
    } catch (...) {
      FAIL() << "iteration " << iter << ": threw something that is not a std::exception";
    }
  }
  std::printf("  [fuzz] 3000 mutated files: %d accepted, %d refused with attn::Error\n", accepted, refused);
  EXPECT_GT(refused, 2000);
}

}  // namespace
}  // namespace attn::model
