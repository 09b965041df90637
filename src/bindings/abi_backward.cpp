// engine.attendBackward: attend's arguments and the gradient of the loss by its output; the
// gradient of every given input, named as the input.
#include "bindings/detail/attention.h"
#include "bindings/detail/call.h"
#include "core/attention.h"

namespace attn::abi::detail {

namespace {

struct BackwardOut {
  Gradients gradients;
  bool batched = false;
};
void attend_backward(const AttendIn& in, BackwardOut& out) {
  out.gradients = attn::attend_backward(in.inputs, in.options, in.grad_output);
  out.batched = in.inputs.x.shape.size() == 3;
}
constexpr Entry kBackward[] = {
    tensor("gradOutput", 2, 3, ATTN_ABI_MEMBER(AttendIn, grad_output)),
    result("x", ATTN_ABI_MEMBER(BackwardOut, gradients.x)),
    result("wq", ATTN_ABI_MEMBER(BackwardOut, gradients.wq)),
    result("wk", ATTN_ABI_MEMBER(BackwardOut, gradients.wk)),
    result("wv", ATTN_ABI_MEMBER(BackwardOut, gradients.wv)),
    result("bq", ATTN_ABI_MEMBER(BackwardOut, gradients.bq)),
    result("bk", ATTN_ABI_MEMBER(BackwardOut, gradients.bk)),
    result("bv", ATTN_ABI_MEMBER(BackwardOut, gradients.bv)),
    result("wqkv", ATTN_ABI_MEMBER(BackwardOut, gradients.wqkv)),
    result("bqkv", ATTN_ABI_MEMBER(BackwardOut, gradients.bqkv)),
    result("wo", ATTN_ABI_MEMBER(BackwardOut, gradients.wo)),
    result("bo", ATTN_ABI_MEMBER(BackwardOut, gradients.bo)),
    report_boolean("batched", ATTN_ABI_MEMBER(BackwardOut, batched)),
};
const Registration kAttendBackward{
    "attendBackward", run<AttendIn, BackwardOut, attend_backward>, {kAttendArguments, kBackward}};

}  // namespace

}  // namespace attn::abi::detail
