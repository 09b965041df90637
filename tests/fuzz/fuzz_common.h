// What every harness of tests/fuzz/ shares: how a finding is reported, the ATTN_FUZZ_KNOWN list
// of filed findings to step over, and the oracle that an error names its argument.
// Header-only: each harness is its own binary (libFuzzer's, or fuzz_replay_<target>).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <string>
#include <typeinfo>

#include "core/attention.h"

namespace attn_fuzz {

// Aborts with "=== FUZZ FINDING: what ===": libFuzzer saves the input, the replay fails.
[[noreturn]] inline void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "\n=== FUZZ FINDING: %s ===\n%s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

// ATTN_FUZZ_KNOWN=name,name skips (instead of reporting) findings already filed, so a campaign
// can keep going past them until they are fixed. Each harness documents its names.
inline bool known(const char* finding_name) {
  const char* list = std::getenv("ATTN_FUZZ_KNOWN");
  return list && std::strstr(list, finding_name) != nullptr;
}

// An error message names its argument: the text before its first ':' is one of `names`, perhaps
// with an index ("heads: …", "tokens[3]: …", "safetensors: tensor \"wte\" …").
inline bool names_argument(const std::string& message, std::initializer_list<const char*> names) {
  const std::size_t colon = message.find(':');
  if (colon == std::string::npos) return false;
  std::string name = message.substr(0, colon);
  if (!name.empty() && name.back() == ']') name = name.substr(0, name.find('['));
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

// Elements of a tensor with these dims: 0 when any is zero or negative (however large the others),
// else their product capped at 2^40.
template <typename Int>
long long element_count(const Int* dims, int rank) {
  for (int i = 0; i < rank; ++i)
    if (dims[i] <= 0) return 0;
  long long n = 1;
  for (int i = 0; i < rank; ++i) n = n > (1LL << 40) / dims[i] ? 1LL << 40 : n * dims[i];
  return n;
}

// Cuts a message or a value for a finding's report.
inline std::string clip(const std::string& s, std::size_t n = 400) { return s.size() > n ? s.substr(0, n) + "…" : s; }

// Runs body; an attn::Error comes back as its message, which must pass names_argument (the
// target's list of argument names), and any other exception is a finding. "" on success.
template <class NamesArgument, class Body>
std::string attempt(const char* where, NamesArgument names_argument, Body body) {
  try {
    body();
  } catch (const attn::Error& error) {
    const std::string message = error.what();
    if (!names_argument(message)) finding("an error does not name its argument", std::string(where) + ": " + message);
    return message.empty() ? std::string("(empty message)") : message;
  } catch (const std::exception& error) {
    finding("an exception other than attn::Error",
            std::string(where) + ": " + typeid(error).name() + ": " + error.what());
  } catch (...) {
    finding("a thrown value that is not a std::exception", where);
  }
  return "";
}

}  // namespace attn_fuzz
