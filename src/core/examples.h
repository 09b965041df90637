// Seed 003's "bank" example, exactly as the seed gives it: fixed 4-d embeddings, a plain
// linear layer W and the projections W_query, W_key, W_value. Legend: D = 4 embedding width.
#pragma once

#include <string>
#include <vector>

namespace attn::examples {

struct Word {
  std::string name;
  std::vector<float> vector;  // (D)
};

struct Matrix {
  int rows = 0, cols = 0;
  std::vector<float> data;  // (rows, cols) row-major
};

struct BankExample {
  std::vector<Word> vocabulary;             // stream, mud, money, loan, bank
  Matrix linear;                            // W (4, 3): the plain linear layer
  Matrix w_query, w_key, w_value;           // (4, 2), (4, 2), (4, 3)
  std::vector<std::string> river, finance;  // the two contexts
};

const BankExample& bank();

// Stacks the embeddings of `tokens` into (T, D); throws attn::Error for an unknown word.
std::vector<float> embed(const std::vector<std::string>& tokens);

}  // namespace attn::examples
