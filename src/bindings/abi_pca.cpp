// engine.pca: the two principal components of points x (N, D), for the plane view.
#include "bindings/detail/call.h"
#include "core/pca.h"

namespace attn::abi::detail {

namespace {

struct PcaIn {
  TensorView x;
};
void pca(const PcaIn& in, Projection2D& out) { out = pca2(in.x); }
constexpr Entry kPca[] = {
    tensor("x", 2, 2, ATTN_ABI_MEMBER(PcaIn, x)),
    result("mean", ATTN_ABI_MEMBER(Projection2D, mean)),
    result("components", ATTN_ABI_MEMBER(Projection2D, components)),
    result("projected", ATTN_ABI_MEMBER(Projection2D, projected)),
    result("explained", ATTN_ABI_MEMBER(Projection2D, explained)),
};
const Registration kPcaCall{"pca", run<PcaIn, Projection2D, pca>, {kPca}};

}  // namespace

}  // namespace attn::abi::detail
