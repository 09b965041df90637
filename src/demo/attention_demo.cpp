// attention-demo: prints seed 003's river and finance examples step by step, the way the
// notebook does: each matrix with token labels, 3 decimals, and the cosine similarity of the two
// "bank" rows before and after attention.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/attention.h"
#include "core/examples.h"

namespace {

struct Settings {
  bool raw = true, projected = true, causal = false;
  attn::ScaleMode scale_mode = attn::ScaleMode::kInverseSqrtHeadSize;
  float scale_factor = 1.0f;
  attn::Kernel kernel = attn::Kernel::kAuto;
};

void usage() {
  std::puts(
      "usage: attention-demo [--raw | --projected] [--causal] [--no-scale | --scale F] [--kernel NAME]\n"
      "  --raw          only the raw dot-product attention on the embeddings (Q = K = V = X, unscaled)\n"
      "  --projected    only the attention with W_query, W_key, W_value (scaled by 1/sqrt(d_k))\n"
      "  --causal       mask future tokens\n"
      "  --no-scale     do not scale the projected scores; --scale F multiplies them by F\n"
      "  --kernel NAME  reference | vectorized | simd | auto (default)");
}

// Prints a (rows, cols) matrix with row labels and optional column labels.
void print_matrix(const char* title, const float* data, int rows, int cols, const std::vector<std::string>& row_labels,
                  const std::vector<std::string>* col_labels = nullptr) {
  std::printf("%s\n", title);
  if (col_labels) {
    std::printf("%10s", "");
    for (const std::string& label : *col_labels) std::printf(" %8s", label.c_str());
    std::printf("\n");
  }
  for (int i = 0; i < rows; ++i) {
    std::printf("%10s", row_labels[static_cast<size_t>(i)].c_str());
    for (int j = 0; j < cols; ++j) {
      const float value = data[i * cols + j];
      if (value == -__builtin_inff())
        std::printf(" %8s", "-inf");
      else
        std::printf(" %8.3f", value);
    }
    std::printf("\n");
  }
  std::printf("\n");
}

int bank_row(const std::vector<std::string>& tokens) {
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] == "bank") return static_cast<int>(i);
  return 0;
}

attn::Trace run(const std::vector<float>& x, int T, bool projected, const Settings& settings) {
  const auto& ex = attn::examples::bank();
  attn::Inputs in;
  in.x = {x.data(), {T, 4}};
  attn::Options opt;
  opt.causal = settings.causal;
  opt.kernel = settings.kernel;
  if (projected) {
    in.wq = {ex.w_query.data.data(), {4, 2}};
    in.wk = {ex.w_key.data.data(), {4, 2}};
    in.wv = {ex.w_value.data.data(), {4, 3}};
    opt.scale_mode = settings.scale_mode;
    opt.scale_factor = settings.scale_factor;
  } else {
    opt.scale_mode = attn::ScaleMode::kNone;  // the seed's raw attention is unscaled
  }
  return attn::attend(in, opt);
}

void show_context(const char* name, const std::vector<std::string>& tokens, bool projected, const Settings& s) {
  const auto& ex = attn::examples::bank();
  const std::vector<float> x = attn::examples::embed(tokens);
  const int T = static_cast<int>(tokens.size());
  const attn::Trace trace = run(x, T, projected, s);
  std::printf("---- %s context: %s %s %s ----\n\n", name, tokens[0].c_str(), tokens[1].c_str(), tokens[2].c_str());
  print_matrix("X (embeddings)", x.data(), T, 4, tokens);
  if (projected) {
    print_matrix("Q = X W_query", trace.q.data.data(), T, trace.dk, tokens);
    print_matrix("K = X W_key", trace.k.data.data(), T, trace.dk, tokens);
    print_matrix("V = X W_value", trace.v.data.data(), T, trace.dv, tokens);
  }
  print_matrix(projected ? "scores = Q K^T" : "scores = X X^T", trace.scores.data.data(), T, T, tokens, &tokens);
  if (projected && s.scale_mode != attn::ScaleMode::kNone) {
    char title[96];
    std::snprintf(title, sizeof title, "scaled = scores * %.4f", static_cast<double>(trace.scale));
    print_matrix(title, trace.scaled.data.data(), T, T, tokens, &tokens);
  }
  if (s.causal) print_matrix("masked (causal)", trace.masked.data.data(), T, T, tokens, &tokens);
  print_matrix("weights = softmax(rows)", trace.weights.data.data(), T, T, tokens, &tokens);
  print_matrix(projected ? "output = weights V" : "output = weights X", trace.output.data.data(), T, trace.d_out,
               tokens);
  (void)ex;
}

void compare_banks(bool projected, const Settings& s) {
  const auto& ex = attn::examples::bank();
  const std::vector<float> river = attn::examples::embed(ex.river), finance = attn::examples::embed(ex.finance);
  const int ri = bank_row(ex.river), fi = bank_row(ex.finance);
  const attn::Trace tr = run(river, 3, projected, s), tf = run(finance, 3, projected, s);
  const int d = tr.d_out;
  const float before = attn::cosine_similarity(&river[ri * 4], &finance[fi * 4], 4);
  std::printf("cosine(bank in river, bank in finance): input %.3f -> after attention %.3f\n\n",
              static_cast<double>(before),
              static_cast<double>(attn::cosine_similarity(&tr.output.data[ri * d], &tf.output.data[fi * d], d)));
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--raw") {
        s.raw = true;
        s.projected = false;
      } else if (arg == "--projected") {
        s.raw = false;
        s.projected = true;
      } else if (arg == "--causal")
        s.causal = true;
      else if (arg == "--no-scale")
        s.scale_mode = attn::ScaleMode::kNone;
      else if (arg == "--scale" && i + 1 < argc) {
        s.scale_mode = attn::ScaleMode::kFactor;
        s.scale_factor = std::stof(argv[++i]);
      } else if (arg == "--kernel" && i + 1 < argc)
        s.kernel = attn::parse_kernel(argv[++i], "--kernel");
      else if (arg == "--help" || arg == "-h") {
        usage();
        return 0;
      } else {
        std::fprintf(stderr, "attention-demo: unknown argument '%s'\n", arg.c_str());
        usage();
        return 2;
      }
    }
    const auto& ex = attn::examples::bank();
    std::printf("Seed 003: the same word \"bank\" in two contexts.\n\n");
    // The plain linear layer cannot tell the two banks apart.
    for (const auto* tokens : {&ex.river, &ex.finance}) {
      const std::vector<float> x = attn::examples::embed(*tokens);
      const attn::Tensor y = attn::linear({x.data(), {3, 4}}, {ex.linear.data.data(), {4, 3}});
      print_matrix(tokens == &ex.river ? "river: X W (plain linear layer)" : "finance: X W (plain linear layer)",
                   y.data.data(), 3, 3, *tokens);
    }
    if (s.raw) {
      std::printf("==== raw dot-product attention: softmax(X X^T) X ====\n\n");
      show_context("river", ex.river, false, s);
      show_context("finance", ex.finance, false, s);
      compare_banks(false, s);
    }
    if (s.projected) {
      std::printf("==== projected attention: softmax(Q K^T / sqrt(d_k)) V ====\n\n");
      show_context("river", ex.river, true, s);
      show_context("finance", ex.finance, true, s);
      compare_banks(true, s);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "attention-demo: %s\n", error.what());
    return 2;
  }
  return 0;
}
