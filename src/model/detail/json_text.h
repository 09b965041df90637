// How an error message shows a JSON value of a stranger's file (a safetensors header, a
// config.json). Private to src/model/ (its .cpp files see nlohmann/json.hpp); defined in
// safetensors.cpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace attn::model {

// Scalars, and arrays or objects of at most 16 scalars, as JSON cut at 200 bytes (on a character
// boundary, then "…"); deeper or longer ones by kind and size ("an array of 3 values"). Never
// recurses into nesting: dump() recurses once per level, and a value nested 10^5 deep ran off the
// stack (tests/fuzz F9). Never throws (invalid UTF-8 is replaced).
std::string json_shown(const nlohmann::json& value);

}  // namespace attn::model
