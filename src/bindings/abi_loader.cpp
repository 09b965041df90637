// The calls that read a checkpoint (src/model/checkpoint.h): engine.loadModel from the bytes of a
// whole file, and engine.openModel slice by slice:
//   modelHeaderLength: N from the file's first 8 bytes;
//   modelOpen: from the first 8 + N bytes, a loader (the parameters allocated), the byte ranges
//     to read in file order (begins, ends) and where the file must end (fileEnd);
//   modelOpenWrite: bytes [offset, offset + n) of one range; modelOpenFinish: the model;
//     modelOpenCancel frees a loader.
// A failed write or finish frees the loader and everything it allocated; models already open are
// untouched. Overrides are the config's fields (−1 / NaN: from config.json, the file's metadata or
// its tensors, in checkpoint.h's order).
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings/detail/call.h"
#include "bindings/detail/models.h"
#include "model/checkpoint.h"
#include "model/safetensors.h"

namespace attn::abi::detail {

namespace {

// The file's size, or kUnknownFileSize for a negative one (a source that does not say).
std::uint64_t file_size_of(double size) {
  return size < 0 ? model::kUnknownFileSize : static_cast<std::uint64_t>(size);
}

// How the model keeps its weights (model::Precision): "f32", "f16", "bf16", or "auto": F16 when
// the weights as float32 (4 bytes × parameters) would take more than `budget` bytes (the caller's
// measure of the memory left: engine.js works it out), else F32. inferenceOnly: float32 kept in
// the products' panels (kF32Panels), for a model that is only run.
enum class Weights { kF32, kF16, kAuto, kBF16 };
const Enumeration& weights_names() {
  static const Enumeration names{"weights", {"f32", "f16", "auto", "bf16"}};  // Weights by value
  return names;
}
struct PrecisionIn {
  Weights weights = Weights::kF32;
  double budget = std::numeric_limits<double>::quiet_NaN();
  bool inference_only = false;
};
// The loader's precision and float32 budget; "auto" without a finite budget ≥ 0 is an error.
std::pair<model::Precision, double> precision_of(const PrecisionIn& in) {
  const model::Precision f32 = in.inference_only ? model::Precision::kF32Panels : model::Precision::kF32;
  if (in.weights == Weights::kF16) return {model::Precision::kF16, model::CheckpointLoader::kNoBudget};
  if (in.weights == Weights::kBF16) return {model::Precision::kBF16, model::CheckpointLoader::kNoBudget};
  if (in.weights == Weights::kF32) return {f32, model::CheckpointLoader::kNoBudget};
  if (!(in.budget >= 0) || !std::isfinite(in.budget)) {
    throw Error("budget: weights 'auto' needs the bytes the weights may take, a finite number ≥ 0");
  }
  return {f32, in.budget};
}

// loadModel: the model of the safetensors file `file` (nanoGPT's layout or Hugging Face's GPT-2);
// config: the text of Hugging Face's config.json, or empty.
struct LoadIn {
  model::ConfigFields config;  // first: kConfigArguments
  Blob file;
  std::string config_json;
  PrecisionIn precision;
};
void model_load(const LoadIn& in, ModelOut& out) {
  check_room_for_a_model();
  const auto [precision, budget] = precision_of(in.precision);
  model::CheckpointLoader loader(in.file.data, in.file.size, in.file.size, in.config, in.config_json, precision,
                                 budget);
  for (std::size_t i = 0; i < loader.copies().size(); ++i) {
    const model::TensorCopy& c = loader.copies()[i];
    loader.write(i, 0, in.file.data + c.begin, static_cast<std::size_t>(c.end - c.begin));
  }
  out.model = add_model(loader.finish());
}
constexpr Entry kLoadTable[] = {
    blob("file", ATTN_ABI_MEMBER(LoadIn, file)),
    blob("config", ATTN_ABI_MEMBER(LoadIn, config_json)),
    choice("weights", ATTN_ABI_MEMBER(LoadIn, precision.weights), weights_names),
    number("budget", ATTN_ABI_MEMBER(LoadIn, precision.budget)),
    boolean("inferenceOnly", ATTN_ABI_MEMBER(LoadIn, precision.inference_only)),
    report_number("model", ATTN_ABI_MEMBER(ModelOut, model)),
};
const Registration kLoad{"modelLoad", run<LoadIn, ModelOut, model_load>, {kConfigArguments, kLoadTable}};

// The header's length N from the file's first 8 bytes (`head`), checked against the file's size
// (fileSize −1: unknown).
struct HeaderLengthIn {
  Blob head;
  double file_size = -1;
};
struct HeaderLengthOut {
  double length = 0;
};
void model_header_length(const HeaderLengthIn& in, HeaderLengthOut& out) {
  const std::uint64_t size = file_size_of(in.file_size);
  if (size < 8) {
    throw Error("safetensors: file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  }
  if (in.head.size < 8) throw Error("bytes: the file's first 8 bytes are needed for its header length");
  out.length = static_cast<double>(model::safetensors_header_length(in.head.data, size));
}
constexpr Entry kHeaderLengthTable[] = {
    blob("head", ATTN_ABI_MEMBER(HeaderLengthIn, head)),
    number("fileSize", ATTN_ABI_MEMBER(HeaderLengthIn, file_size)),
    report_number("length", ATTN_ABI_MEMBER(HeaderLengthOut, length)),
};
const Registration kHeaderLength{
    "modelHeaderLength", run<HeaderLengthIn, HeaderLengthOut, model_header_length>, {kHeaderLengthTable}};

// Checkpoints being read in slices, by handle.
std::map<int, std::unique_ptr<model::CheckpointLoader>> opening;
int next_open = 1;
constexpr std::size_t kMaxOpening = 16;
constexpr int kMaxSliceBytes = 1 << 26;

model::CheckpointLoader& loader_of(int handle) {
  const auto found = opening.find(handle);
  if (found == opening.end()) throw Error("model: this checkpoint is no longer being read (it failed or finished)");
  return *found->second;
}

// modelOpen: from the file's first 8 + N bytes (`header`).
struct OpenIn {
  model::ConfigFields config;  // first: kConfigArguments
  Blob header;
  std::string config_json;
  double file_size = -1;
  PrecisionIn precision;
};
struct OpenOut {
  int loader = 0;
  double file_end = 0;
  Doubles begins, ends;  // the byte ranges to read, in file order
};
void model_open(const OpenIn& in, OpenOut& out) {
  if (opening.size() >= kMaxOpening) {
    throw Error("model: " + std::to_string(kMaxOpening) + " checkpoints are being read already; finish or cancel one");
  }
  check_room_for_a_model();
  const auto [precision, budget] = precision_of(in.precision);
  auto loader = std::make_unique<model::CheckpointLoader>(in.header.data, in.header.size, file_size_of(in.file_size),
                                                          in.config, in.config_json, precision, budget);
  for (const model::TensorCopy& c : loader->copies()) {
    out.begins.data.push_back(static_cast<double>(c.begin));
    out.ends.data.push_back(static_cast<double>(c.end));
  }
  out.begins.shape = out.ends.shape = {static_cast<int>(loader->copies().size())};
  const model::SafetensorsHeader& h = loader->header();
  out.file_end = static_cast<double>(h.buffer_offset + h.buffer_size);
  opening.emplace(next_open, std::move(loader));
  out.loader = next_open++;
}
constexpr Entry kOpenTable[] = {
    blob("header", ATTN_ABI_MEMBER(OpenIn, header)),
    blob("config", ATTN_ABI_MEMBER(OpenIn, config_json)),
    number("fileSize", ATTN_ABI_MEMBER(OpenIn, file_size)),
    choice("weights", ATTN_ABI_MEMBER(OpenIn, precision.weights), weights_names),
    number("budget", ATTN_ABI_MEMBER(OpenIn, precision.budget)),
    boolean("inferenceOnly", ATTN_ABI_MEMBER(OpenIn, precision.inference_only)),
    result("begins", ATTN_ABI_MEMBER(OpenOut, begins)),
    result("ends", ATTN_ABI_MEMBER(OpenOut, ends)),
    report_number("loader", ATTN_ABI_MEMBER(OpenOut, loader)),
    report_number("fileEnd", ATTN_ABI_MEMBER(OpenOut, file_end)),
};
const Registration kOpen{"modelOpen", run<OpenIn, OpenOut, model_open>, {kConfigArguments, kOpenTable}};

// Runs a step of reading; a failure frees the loader and its parameters.
template <class Body>
void reading(int handle, Body body) {
  try {
    body(loader_of(handle));
  } catch (...) {
    opening.erase(handle);
    throw;
  }
}

// modelOpenWrite: `bytes` are bytes [offset, offset + n) of copy `copy`'s range.
struct WriteIn {
  int loader = 0, copy = 0;
  double offset = 0;
  Blob bytes;
};
void model_open_write(const WriteIn& in, None&) {
  reading(in.loader, [&](model::CheckpointLoader& l) {
    if (in.bytes.size < 1 || in.bytes.size > static_cast<std::size_t>(kMaxSliceBytes)) {
      throw Error("bytes: a slice of 1 to " + std::to_string(kMaxSliceBytes) + " bytes, got " +
                  std::to_string(in.bytes.size));
    }
    if (!(in.offset >= 0) || in.copy < 0) {
      throw Error("write: " + std::to_string(in.bytes.size) + " bytes of range " + std::to_string(in.copy) +
                  " at offset " + std::to_string(in.offset));
    }
    l.write(static_cast<std::size_t>(in.copy), static_cast<std::uint64_t>(in.offset), in.bytes.data, in.bytes.size);
  });
}
constexpr Entry kOpenWriteTable[] = {
    integer("loader", ATTN_ABI_MEMBER(WriteIn, loader)),
    integer("copy", ATTN_ABI_MEMBER(WriteIn, copy)),
    number("offset", ATTN_ABI_MEMBER(WriteIn, offset)),
    blob("bytes", ATTN_ABI_MEMBER(WriteIn, bytes)),
};
const Registration kOpenWrite{"modelOpenWrite", run<WriteIn, None, model_open_write>, {kOpenWriteTable}};

struct LoaderIn {
  int loader = 0;
};
void model_open_finish(const LoaderIn& in, ModelOut& out) {
  reading(in.loader, [&](model::CheckpointLoader& l) {
    std::unique_ptr<model::Gpt> gpt = l.finish();
    opening.erase(in.loader);
    out.model = add_model(std::move(gpt));
  });
}
constexpr Entry kOpenFinishTable[] = {
    integer("loader", ATTN_ABI_MEMBER(LoaderIn, loader)),
    report_number("model", ATTN_ABI_MEMBER(ModelOut, model)),
};
const Registration kOpenFinish{"modelOpenFinish", run<LoaderIn, ModelOut, model_open_finish>, {kOpenFinishTable}};

// modelWeights: how a model keeps its weights (f32, f16 or bf16; inferenceOnly: in the products'
// panels, for inference only — always so for F16 and BF16), and the bytes they take.
const Enumeration& precision_names() {
  // model::Precision by value: kF32Panels is float32 too (inferenceOnly says the rest)
  static const Enumeration names{"precision", {"f32", "f16", "f32", "bf16"}};
  return names;
}
struct WeightsIn {
  int model = 0;
};
struct WeightsOut {
  model::Precision weights = model::Precision::kF32;
  bool inference_only = false;
  double bytes = 0;
};
void model_weights(const WeightsIn& in, WeightsOut& out) {
  const model::Gpt& gpt = model_slot(in.model).gpt;
  out.weights = gpt.precision();
  out.inference_only = gpt.precision() != model::Precision::kF32;
  out.bytes = static_cast<double>(gpt.weight_bytes());
}
constexpr Entry kWeightsTable[] = {
    integer("model", ATTN_ABI_MEMBER(WeightsIn, model)),
    report_choice("weights", ATTN_ABI_MEMBER(WeightsOut, weights), precision_names),
    report_boolean("inferenceOnly", ATTN_ABI_MEMBER(WeightsOut, inference_only)),
    report_number("bytes", ATTN_ABI_MEMBER(WeightsOut, bytes)),
};
const Registration kWeights{"modelWeights", run<WeightsIn, WeightsOut, model_weights>, {kWeightsTable}};

void model_open_cancel(const LoaderIn& in, None&) { opening.erase(in.loader); }
constexpr Entry kOpenCancelTable[] = {
    integer("loader", ATTN_ABI_MEMBER(LoaderIn, loader)),
};
const Registration kOpenCancel{"modelOpenCancel", run<LoaderIn, None, model_open_cancel>, {kOpenCancelTable}};

}  // namespace

}  // namespace attn::abi::detail
