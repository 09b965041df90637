#include "core/examples.h"

#include "core/attention.h"

namespace attn::examples {

const BankExample& bank() {
  static const BankExample example = {
      {
          {"stream", {1.2f, 0.0f, 0.0f, 0.3f}},
          {"mud", {0.9f, 0.0f, 0.0f, 0.9f}},
          {"money", {0.0f, 1.4f, 0.0f, 0.1f}},
          {"loan", {0.0f, 1.1f, 0.0f, 0.6f}},
          {"bank", {0.8f, 0.8f, 0.2f, 0.0f}},
      },
      {4, 3, {1.0f, 0.2f, 0.0f, 0.1f, 1.1f, 0.0f, 0.5f, 0.5f, 1.0f, 0.0f, 0.3f, 0.8f}},
      {4, 2, {1.0f, 0.0f, 0.0f, 1.0f, 0.2f, 0.2f, 0.0f, 0.0f}},
      {4, 2, {1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.1f, 0.1f}},
      {4, 3, {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.5f}},
      {"stream", "bank", "mud"},
      {"money", "bank", "loan"},
  };
  return example;
}

std::vector<float> embed(const std::vector<std::string>& tokens) {
  std::vector<float> x;
  for (const std::string& token : tokens) {
    const Word* found = nullptr;
    for (const Word& word : bank().vocabulary)
      if (word.name == token) found = &word;
    if (!found) throw Error("tokens: unknown word '" + token + "' (the vocabulary is stream, mud, money, loan, bank)");
    x.insert(x.end(), found->vector.begin(), found->vector.end());
  }
  return x;
}

}  // namespace attn::examples
