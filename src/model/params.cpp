// The parameter table of a ModelConfig and nanoGPT's initialisation.
// Legend: V vocab_size, T block_size, L n_layer, C n_embd.
#include "model/params.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "core/attention.h"

namespace attn::model {

ParamTable::ParamTable(const ModelConfig& config) : config_(config) {
  validate(config);
  const int V = config.vocab_size, T = config.block_size, C = config.n_embd;
  auto add = [&](const std::string& name, std::vector<int> shape, Init init) {
    ParamEntry e;
    e.name = name;
    e.size = 1;
    for (int d : shape) e.size *= static_cast<std::size_t>(d);
    e.decay = shape.size() >= 2;
    e.shape = std::move(shape);
    e.offset = total_;
    e.init = init;
    total_ += e.size;
    entries_.push_back(std::move(e));
  };
  // Indices first: pointers into entries_ are taken once it stops growing.
  struct BlockIndex {
    int ln_1_w = -1, ln_1_b = -1, attn_w = -1, attn_b = -1, aproj_w = -1, aproj_b = -1;
    int ln_2_w = -1, ln_2_b = -1, fc_w = -1, fc_b = -1, mproj_w = -1, mproj_b = -1;
  };
  std::vector<BlockIndex> index(static_cast<std::size_t>(config.n_layer));
  auto here = [&] { return static_cast<int>(entries_.size()); };

  add("transformer.wte.weight", {V, C}, Init::kNormal);
  add("transformer.wpe.weight", {T, C}, Init::kNormal);
  for (int i = 0; i < config.n_layer; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    BlockIndex& bi = index[static_cast<std::size_t>(i)];
    if (config.layer_norm) {
      bi.ln_1_w = here(), add(p + "ln_1.weight", {C}, Init::kOnes);
      if (config.bias) bi.ln_1_b = here(), add(p + "ln_1.bias", {C}, Init::kZeros);
    }
    bi.attn_w = here(), add(p + "attn.c_attn.weight", {3 * C, C}, Init::kNormal);
    if (config.bias) bi.attn_b = here(), add(p + "attn.c_attn.bias", {3 * C}, Init::kZeros);
    bi.aproj_w = here(), add(p + "attn.c_proj.weight", {C, C}, Init::kNormalResidual);
    if (config.bias) bi.aproj_b = here(), add(p + "attn.c_proj.bias", {C}, Init::kZeros);
    if (config.mlp) {
      if (config.layer_norm) {
        bi.ln_2_w = here(), add(p + "ln_2.weight", {C}, Init::kOnes);
        if (config.bias) bi.ln_2_b = here(), add(p + "ln_2.bias", {C}, Init::kZeros);
      }
      bi.fc_w = here(), add(p + "mlp.c_fc.weight", {4 * C, C}, Init::kNormal);
      if (config.bias) bi.fc_b = here(), add(p + "mlp.c_fc.bias", {4 * C}, Init::kZeros);
      bi.mproj_w = here(), add(p + "mlp.c_proj.weight", {C, 4 * C}, Init::kNormalResidual);
      if (config.bias) bi.mproj_b = here(), add(p + "mlp.c_proj.bias", {C}, Init::kZeros);
    }
  }
  int ln_f_w = -1, ln_f_b = -1;
  if (config.layer_norm) {
    ln_f_w = here(), add("transformer.ln_f.weight", {C}, Init::kOnes);
    if (config.bias) ln_f_b = here(), add("transformer.ln_f.bias", {C}, Init::kZeros);
  }

  auto ptr = [&](int k) -> const ParamEntry* { return k < 0 ? nullptr : &entries_[static_cast<std::size_t>(k)]; };
  for (const BlockIndex& bi : index) {
    BlockEntries b;
    b.ln_1_weight = ptr(bi.ln_1_w), b.ln_1_bias = ptr(bi.ln_1_b);
    b.c_attn_weight = ptr(bi.attn_w), b.c_attn_bias = ptr(bi.attn_b);
    b.attn_proj_weight = ptr(bi.aproj_w), b.attn_proj_bias = ptr(bi.aproj_b);
    b.ln_2_weight = ptr(bi.ln_2_w), b.ln_2_bias = ptr(bi.ln_2_b);
    b.c_fc_weight = ptr(bi.fc_w), b.c_fc_bias = ptr(bi.fc_b);
    b.mlp_proj_weight = ptr(bi.mproj_w), b.mlp_proj_bias = ptr(bi.mproj_b);
    blocks_.push_back(b);
  }
  ln_f_weight_ = ptr(ln_f_w);
  ln_f_bias_ = ptr(ln_f_b);
}

const ParamEntry* ParamTable::find(const std::string& name) const {
  if (name == "lm_head.weight") return &entries_[0];
  for (const ParamEntry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

const ParamEntry& ParamTable::at(const std::string& name) const {
  const ParamEntry* e = find(name);
  if (!e) throw Error("parameter " + name + ": no such tensor in this model");
  return *e;
}

std::vector<std::string> ParamTable::state_dict_names(bool lm_head, bool causal_mask_buffers) const {
  std::vector<std::string> names;
  const std::string block_prefix = "transformer.h.";
  for (const ParamEntry& e : entries_) {
    // The mask buffer is the attention module's own entry: state_dict lists a module's own
    // parameters and buffers before its children's, so it precedes attn.c_attn.weight.
    if (causal_mask_buffers && e.name.compare(0, block_prefix.size(), block_prefix) == 0) {
      const std::size_t dot = e.name.find('.', block_prefix.size());
      if (e.name.compare(dot + 1, std::string::npos, "attn.c_attn.weight") == 0) {
        names.push_back(e.name.substr(0, dot + 1) + "attn.bias");
      }
    }
    names.push_back(e.name);
  }
  if (lm_head) names.push_back("lm_head.weight");
  return names;
}

// ---------------------------------------------------------------------------------------------
// Initialisation

InitFill seeded_fill(std::uint64_t seed) {
  auto engine = std::make_shared<std::mt19937_64>(seed);
  // A uniform double in (0, 1]: 53 random bits, shifted off zero so log() is finite.
  auto unit = [engine] { return (static_cast<double>((*engine)() >> 11) + 1.0) * 0x1.0p-53; };
  InitFill fill;
  fill.normal = [unit](float* data, std::size_t n, double mean, double std) {
    constexpr double kTwoPi = 6.283185307179586477;
    for (std::size_t i = 0; i < n; ++i) {
      const double u1 = unit(), u2 = unit();
      data[i] = static_cast<float>(mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2));
    }
  };
  fill.uniform = [unit](float* data, std::size_t n, double from, double to) {
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<float>(from + (to - from) * (1.0 - unit()));
  };
  return fill;
}

namespace {

// The entries of one nn.Linear (weight, bias or null) in module order, and lm_head's input width.
struct LinearRef {
  const ParamEntry* weight;
  const ParamEntry* bias;
};

std::vector<LinearRef> linears_in_module_order(const ParamTable& table) {
  std::vector<LinearRef> out;
  for (int i = 0; i < table.config().n_layer; ++i) {
    const BlockEntries& b = table.block(i);
    out.push_back({b.c_attn_weight, b.c_attn_bias});
    out.push_back({b.attn_proj_weight, b.attn_proj_bias});
    if (b.c_fc_weight) {
      out.push_back({b.c_fc_weight, b.c_fc_bias});
      out.push_back({b.mlp_proj_weight, b.mlp_proj_bias});
    }
  }
  return out;
}

}  // namespace

void init_params(float* params, const ParamTable& table, const InitFill& fill) {
  if (!fill.normal || !fill.uniform) throw Error("init_params: fill.normal and fill.uniform must both be set");
  const ModelConfig& config = table.config();
  auto data = [&](const ParamEntry& e) { return params + e.offset; };
  const std::vector<LinearRef> linears = linears_in_module_order(table);

  // nn.Linear.reset_parameters: kaiming_uniform_(w, a=√5) then uniform_(b, ±1/√fan_in), with
  // torch's double arithmetic: gain = √(2/(1 + a²)), bound = √3 · gain/√fan_in.
  auto linear_reset = [&](float* w, std::size_t w_size, float* b, std::size_t b_size, int fan_in) {
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1 + a * a));
    const double bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(fan_in)));
    fill.uniform(w, w_size, -bound, bound);
    if (b) {
      const double b_bound = 1 / std::sqrt(static_cast<double>(fan_in));
      fill.uniform(b, b_size, -b_bound, b_bound);
    }
  };

  // 1. construction: what each module's constructor draws (overwritten below).
  fill.normal(data(table.wte()), table.wte().size, 0.0, 1.0);
  fill.normal(data(table.wpe()), table.wpe().size, 0.0, 1.0);
  for (const LinearRef& l : linears) {
    linear_reset(data(*l.weight), l.weight->size, l.bias ? data(*l.bias) : nullptr, l.bias ? l.bias->size : 0,
                 l.weight->shape[1]);
  }
  linear_reset(data(table.wte()), table.wte().size, nullptr, 0, config.n_embd);  // lm_head, before tying
  for (const ParamEntry& e : table.entries()) {
    if (e.init == Init::kOnes) std::fill(data(e), data(e) + e.size, 1.0f);
    if (e.init == Init::kZeros) std::fill(data(e), data(e) + e.size, 0.0f);
  }

  // 2. _init_weights over the modules, children first: wte, wpe, each block's Linears, lm_head.
  fill.normal(data(table.wte()), table.wte().size, 0.0, 0.02);
  fill.normal(data(table.wpe()), table.wpe().size, 0.0, 0.02);
  for (const LinearRef& l : linears) {
    fill.normal(data(*l.weight), l.weight->size, 0.0, 0.02);
    if (l.bias) std::fill(data(*l.bias), data(*l.bias) + l.bias->size, 0.0f);
  }
  fill.normal(data(table.wte()), table.wte().size, 0.0, 0.02);  // lm_head.weight is wte

  // 3. the residual projections again, scaled for depth (GPT-2's 1/√(2L)).
  if (config.n_layer > 0) {
    const double std_residual = 0.02 / std::sqrt(2.0 * config.n_layer);
    for (const ParamEntry& e : table.entries())
      if (e.init == Init::kNormalResidual) fill.normal(data(e), e.size, 0.0, std_residual);
  }
}

}  // namespace attn::model
