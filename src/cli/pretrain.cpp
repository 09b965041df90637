// attn-pretrain: trains a nanoGPT-compatible Gpt on token files (pretraining.h), natively, for
// `npm run pretrain` (scripts/pretrain.mjs), and writes into --out:
//   log.json                    settings, every step's loss, gradient norm and rate, the held-out
//                               losses, the final evaluations, time, tokens seen, the weights' hash
//   step-<k>.safetensors        checkpoints every --checkpoint-every steps (F32, config in metadata)
//   final.safetensors           the last weights, F32; final-f16.safetensors the same in F16
//                               without the tied lm_head.weight copy (what ships)
//   record.json                 with --record K: the first K steps' batches, losses (float32 bits)
//                               and the weights' hash after them (tests/cpp/cli/pretraining_test.cpp
//                               replays them)
// Deterministic: the same settings and token files give the same weights bit for bit (same build).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/pretraining.h"
#include "core/attention.h"
#include "core/threads.h"
#include "model/safetensors.h"

namespace {

using attn::Error;
using json = nlohmann::json;
namespace model = attn::model;
namespace pretrain = attn::pretrain;

const char* const kUsage =
    "usage: attn-pretrain --train FILE --val FILE --out DIR [options]\n"
    "  data      --train FILE --val FILE (uint16 token ids); --eval NAME=FILE (repeatable: evaluated\n"
    "            whole at the end, every non-overlapping window)\n"
    "  model     --vocab V --context T --layers L --heads H --width C --dropout P --bias 0|1\n"
    "  training  --seed S --batch B --steps K --lr R --min-lr R --warmup K --decay-steps K\n"
    "            --beta1 X --beta2 X --weight-decay X --clip X --threads N\n"
    "            --wpe-init normal|sinusoidal[:S] (normal: nanoGPT's; sinusoidal: row RMS S × 0.02, S = 1)\n"
    "  output    --eval-every K (250) --eval-windows W (64) --checkpoint-every K (0: final only)\n"
    "            --record K (0) --quiet\n";

struct Cli {
  pretrain::Settings settings;
  std::string train, val, out;
  std::vector<std::pair<std::string, std::string>> evals;
  long long eval_every = 250, checkpoint_every = 0;
  int eval_windows = 64, record = 0;
  bool quiet = false;
};

double number(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size()) throw Error(flag + ": expected a number, got '" + text + "'");
  return value;
}

long long integer(const std::string& flag, const std::string& text, long long lo, long long hi) {
  const double v = number(flag, text);
  if (v != static_cast<double>(static_cast<long long>(v)) || v < static_cast<double>(lo) ||
      v > static_cast<double>(hi)) {
    throw Error(flag + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                text);
  }
  return static_cast<long long>(v);
}

Cli parse(int argc, char** argv) {
  Cli cli;
  pretrain::Settings& s = cli.settings;
  model::ModelConfig& c = s.config;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--quiet") {
      cli.quiet = true;
      continue;
    }
    if (flag == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) throw Error(flag + ": expected a value after it");
    const std::string v = argv[++i];
    const long long big = 1LL << 40;
    if (flag == "--train")
      cli.train = v;
    else if (flag == "--val")
      cli.val = v;
    else if (flag == "--out")
      cli.out = v;
    else if (flag == "--eval") {
      const std::size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) throw Error("--eval: expected NAME=FILE, got '" + v + "'");
      cli.evals.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (flag == "--vocab")
      c.vocab_size = static_cast<int>(integer(flag, v, 1, 65536));
    else if (flag == "--context")
      c.block_size = static_cast<int>(integer(flag, v, 1, 16384));
    else if (flag == "--layers")
      c.n_layer = static_cast<int>(integer(flag, v, 0, 64));
    else if (flag == "--heads")
      c.n_head = static_cast<int>(integer(flag, v, 1, 256));
    else if (flag == "--width")
      c.n_embd = static_cast<int>(integer(flag, v, 1, 4096));
    else if (flag == "--dropout")
      c.dropout = number(flag, v);
    else if (flag == "--bias")
      c.bias = integer(flag, v, 0, 1) == 1;
    else if (flag == "--seed")
      s.seed = static_cast<std::uint64_t>(integer(flag, v, 0, 4095));
    else if (flag == "--batch")
      s.batch = static_cast<int>(integer(flag, v, 1, 1024));
    else if (flag == "--steps")
      s.steps = integer(flag, v, 0, (1LL << 20) - 1);
    else if (flag == "--lr")
      s.lr = number(flag, v);
    else if (flag == "--min-lr")
      s.min_lr = number(flag, v);
    else if (flag == "--warmup")
      s.warmup = integer(flag, v, 0, big);
    else if (flag == "--decay-steps")
      s.decay_steps = integer(flag, v, 1, big);
    else if (flag == "--beta1")
      s.beta1 = number(flag, v);
    else if (flag == "--beta2")
      s.beta2 = number(flag, v);
    else if (flag == "--weight-decay")
      s.weight_decay = number(flag, v);
    else if (flag == "--clip")
      s.clip = number(flag, v);
    else if (flag == "--threads")
      s.threads = static_cast<int>(integer(flag, v, 1, 256));
    else if (flag == "--wpe-init") {
      if (v == "normal")
        s.wpe_sinusoidal = 0;
      else if (v == "sinusoidal")
        s.wpe_sinusoidal = 1;
      else if (v.rfind("sinusoidal:", 0) == 0) {
        s.wpe_sinusoidal = number(flag, v.substr(11));
        if (!(s.wpe_sinusoidal > 0) || !std::isfinite(s.wpe_sinusoidal))
          throw Error("--wpe-init: expected sinusoidal:S with a finite S > 0, got " + v);
      } else
        throw Error("--wpe-init: expected normal, sinusoidal or sinusoidal:S, got '" + v + "'");
    } else if (flag == "--eval-every")
      cli.eval_every = integer(flag, v, 1, big);
    else if (flag == "--eval-windows")
      cli.eval_windows = static_cast<int>(integer(flag, v, 0, 1 << 20));
    else if (flag == "--checkpoint-every")
      cli.checkpoint_every = integer(flag, v, 0, big);
    else if (flag == "--record")
      cli.record = static_cast<int>(integer(flag, v, 0, 64));
    else
      throw Error("unknown option " + flag + "\n" + kUsage);
  }
  if (cli.train.empty() || cli.val.empty() || cli.out.empty())
    throw Error(std::string("--train, --val and --out are required\n") + kUsage);
  return cli;
}

// The thread count is an option of the run (and of its record): the core's pool runs the model's
// loops over that many threads, and every count gives the same bits (tests/cpp/core/threads_test.cpp).
void configure_threads(int threads) { attn::set_thread_count(threads); }

json settings_json(const pretrain::Settings& s) {
  const model::ModelConfig& c = s.config;
  return {{"config",
           {{"vocab_size", c.vocab_size},
            {"block_size", c.block_size},
            {"n_layer", c.n_layer},
            {"n_head", c.n_head},
            {"n_embd", c.n_embd},
            {"bias", c.bias},
            {"dropout", c.dropout},
            {"mlp", c.mlp},
            {"layer_norm", c.layer_norm}}},
          {"seed", s.seed},
          {"batch", s.batch},
          {"steps", s.steps},
          {"lr", s.lr},
          {"min_lr", s.min_lr},
          {"warmup", s.warmup},
          {"decay_steps", s.decay_steps},
          {"beta1", s.beta1},
          {"beta2", s.beta2},
          {"weight_decay", s.weight_decay},
          {"clip", s.clip},
          {"threads", s.threads},
          {"wpe_init", s.wpe_sinusoidal > 0 ? "sinusoidal" : "normal"},
          {"wpe_scale", s.wpe_sinusoidal > 0 ? s.wpe_sinusoidal : 1.0}};
}

std::string hex64(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

void write_file(const std::string& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw Error(path + ": cannot be written");
}

void write_json(const std::string& path, const json& value) {
  const std::string text = value.dump(1) + "\n";
  write_file(path, text.data(), text.size());
}

// F32 checkpoints hold lm_head.weight too (PyTorch's strict load_state_dict wants it); the F16
// file that ships has transformer.wte.weight only (the tied copy would add V·C values).
void write_checkpoint(const std::string& path, const model::Gpt& gpt, model::Dtype dtype, long long step) {
  model::ExportOptions options;
  options.dtype = dtype;
  options.lm_head = dtype == model::Dtype::kF32;
  options.metadata["step"] = std::to_string(step);
  const std::vector<std::uint8_t> bytes = model::export_safetensors(gpt.table(), gpt.params().data(), options);
  write_file(path, bytes.data(), bytes.size());
}

int run(const Cli& cli) {
  const pretrain::Settings& s = cli.settings;
  const int T = s.config.block_size, B = s.batch;
  configure_threads(s.threads);
  const std::vector<std::uint16_t> train = pretrain::read_tokens(cli.train, s.config.vocab_size);
  const std::vector<std::uint16_t> val = pretrain::read_tokens(cli.val, s.config.vocab_size);
  model::Gpt gpt(s.config, s.seed);
  if (s.wpe_sinusoidal > 0) pretrain::init_wpe_sinusoidal(gpt, s.wpe_sinusoidal);
  model::Trainer trainer(gpt);
  const model::StepOptions options = pretrain::step_options(s);
  const std::vector<std::int64_t> val_windows = pretrain::eval_offsets(val.size(), T, cli.eval_windows);

  json log = {{"settings", settings_json(s)},
              {"parameters", model::parameter_count(s.config)},
              {"tokens", {{"train", train.size()}, {"val", val.size()}}},
              {"eval_windows", val_windows.size()}};
  json steps = json::array(), evals = json::array(), record_steps = json::array();
  const auto clock = std::chrono::steady_clock::now;
  const auto start = clock();
  double train_seconds = 0;
  const auto seconds_since = [&](auto t0) { return std::chrono::duration<double>(clock() - t0).count(); };
  const auto eval_now = [&](long long step) {
    const auto t0 = clock();
    const pretrain::EvalResult r = pretrain::evaluate(gpt, val, val_windows, T, B);
    evals.push_back({{"step", step}, {"loss", r.loss()}, {"seconds", seconds_since(t0)}});
    if (!cli.quiet) std::printf("step %lld: held-out loss %.4f\n", step, r.loss());
    json snapshot = log;  // the log so far, in case the run is stopped
    snapshot["steps"] = steps;
    snapshot["evals"] = evals;
    write_json(cli.out + "/log.json", snapshot);
  };

  for (long long k = 0; k < s.steps; ++k) {
    if (k % cli.eval_every == 0) eval_now(k);
    const pretrain::SampledBatch batch = pretrain::sample_batch(train, B, T, s.seed, k);
    const auto t0 = clock();
    const model::StepResult r = trainer.step(model::Batch{batch.tokens.data(), batch.targets.data(), B, T}, options);
    const double dt = seconds_since(t0);
    train_seconds += dt;
    steps.push_back({r.loss, r.grad_norm, r.lr});
    if (k < cli.record) {
      record_steps.push_back({{"offsets", batch.offsets},
                              {"tokens", batch.tokens},
                              {"targets", batch.targets},
                              {"loss", r.loss},
                              {"loss_bits", pretrain::float_bits(r.loss)},
                              {"weights_hash", hex64(pretrain::weights_hash(gpt.params()))}});
    }
    if (!cli.quiet && (k % 50 == 0 || k + 1 == s.steps)) {
      std::printf("step %lld: loss %.4f, grad norm %.3f, lr %.2e, %.0f ms\n", k, r.loss, r.grad_norm, r.lr, dt * 1e3);
      std::fflush(stdout);
    }
    if (cli.checkpoint_every > 0 && (k + 1) % cli.checkpoint_every == 0) {
      write_checkpoint(cli.out + "/step-" + std::to_string(k + 1) + ".safetensors", gpt, model::Dtype::kF32, k + 1);
    }
  }
  eval_now(s.steps);

  json finals = json::object();
  for (const auto& [name, path] : cli.evals) {
    const std::vector<std::uint16_t> data = pretrain::read_tokens(path, s.config.vocab_size);
    const pretrain::EvalResult r = pretrain::evaluate(gpt, data, pretrain::eval_offsets(data.size(), T, 0), T, B);
    finals[name] = {{"loss", r.loss()}, {"tokens", r.tokens}};
    if (!cli.quiet) std::printf("final %s: loss %.4f over %lld tokens\n", name.c_str(), r.loss(), r.tokens);
  }
  write_checkpoint(cli.out + "/final.safetensors", gpt, model::Dtype::kF32, s.steps);
  write_checkpoint(cli.out + "/final-f16.safetensors", gpt, model::Dtype::kF16, s.steps);
  const std::string hash = hex64(pretrain::weights_hash(gpt.params()));
  log["steps"] = steps;
  log["evals"] = evals;
  log["final"] = finals;
  log["train_seconds"] = train_seconds;
  log["seconds"] = seconds_since(start);
  log["tokens_seen"] = s.steps * B * T;
  log["weights_hash"] = hash;
  write_json(cli.out + "/log.json", log);
  if (cli.record > 0) {
    write_json(cli.out + "/record.json",
               {{"about",
                 "The first steps of this run: batches, losses (float32 bits) and the FNV-1a hash of the weights "
                 "after each step; tests/cpp/cli/pretraining_test.cpp replays them."},
                {"settings", settings_json(s)},
                {"steps", record_steps},
                {"final_weights_hash", hash}});
  }
  if (!cli.quiet) std::printf("done: %lld steps in %.0f s, weights %s\n", s.steps, seconds_since(start), hash.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attn-pretrain: %s\n", e.what());
    return 1;
  }
}
