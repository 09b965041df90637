// Numbers and shapes as the error messages of the core and the model spell them (validate.cpp).
#pragma once

#include <string>
#include <vector>

namespace attn {

// "(3, 4)"; a 1-d shape "(3,)", as Python prints a tuple.
std::string shape_string(const std::vector<int>& shape);

// A number in its shortest form: "0.5", "1e+30", "inf", "nan".
std::string number_string(double value);

}  // namespace attn
