// What the attention calls share with the others (abi_attention.cpp defines them): attend's
// arguments, which attendBackward takes too, and the kernel names the model's calls take too.
#pragma once

#include <cstddef>

#include "bindings/abi.h"
#include "bindings/detail/call.h"
#include "core/attention.h"

namespace attn::abi::detail {

// attn::Kernel's names by value (kernel_name()).
const Enumeration& kernel_names();
// attn::ScaleMode's names by value.
const Enumeration& scale_mode_names();

// attend's input: the tensors, the flags and the scalar options; attendBackward's also the
// gradient of the loss by attend's output (attend leaves it not given).
struct AttendIn {
  Inputs inputs;
  Options options;
  TensorView grad_output;
};

// attend's arguments, named as engine.attend's options.
inline constexpr Entry kAttendArguments[] = {
    tensor("x", 2, 3, ATTN_ABI_MEMBER(AttendIn, inputs.x)),
    tensor("wq", 2, 2, ATTN_ABI_MEMBER(AttendIn, inputs.wq)),
    tensor("wk", 2, 2, ATTN_ABI_MEMBER(AttendIn, inputs.wk)),
    tensor("wv", 2, 2, ATTN_ABI_MEMBER(AttendIn, inputs.wv)),
    tensor("bq", 1, 1, ATTN_ABI_MEMBER(AttendIn, inputs.bq)),
    tensor("bk", 1, 1, ATTN_ABI_MEMBER(AttendIn, inputs.bk)),
    tensor("bv", 1, 1, ATTN_ABI_MEMBER(AttendIn, inputs.bv)),
    tensor("wqkv", 2, 2, ATTN_ABI_MEMBER(AttendIn, inputs.wqkv)),
    tensor("bqkv", 1, 1, ATTN_ABI_MEMBER(AttendIn, inputs.bqkv)),
    tensor("wo", 2, 2, ATTN_ABI_MEMBER(AttendIn, inputs.wo)),
    tensor("bo", 1, 1, ATTN_ABI_MEMBER(AttendIn, inputs.bo)),
    flags("keyPadding", ATTN_ABI_MEMBER(AttendIn, options.key_padding),
          ATTN_ABI_MEMBER(AttendIn, options.key_padding_shape)),
    flags("dropoutKeep", ATTN_ABI_MEMBER(AttendIn, options.dropout_keep)),
    choice("kernel", ATTN_ABI_MEMBER(AttendIn, options.kernel), kernel_names),
    integer("heads", ATTN_ABI_MEMBER(AttendIn, options.heads)),
    boolean("causal", ATTN_ABI_MEMBER(AttendIn, options.causal)),
    choice("scaleMode", ATTN_ABI_MEMBER(AttendIn, options.scale_mode), scale_mode_names),
    number("scale", ATTN_ABI_MEMBER(AttendIn, options.scale_factor)),
    number("temperature", ATTN_ABI_MEMBER(AttendIn, options.temperature)),
    number("dropout", ATTN_ABI_MEMBER(AttendIn, options.dropout)),
    integer("seed", ATTN_ABI_MEMBER(AttendIn, options.seed)),
    boolean("training", ATTN_ABI_MEMBER(AttendIn, options.training)),
    boolean("materialize", ATTN_ABI_MEMBER(AttendIn, options.materialize)),
};

}  // namespace attn::abi::detail
