// A 2-D picture of wider vectors: principal component analysis of a set of points, for the
// explorer's "plane" view (queries, keys and outputs wider than 2 drawn in the plane that keeps
// most of their spread). Legend: N points, D width.
#pragma once

#include "core/attention.h"

namespace attn {

struct Projection2D {
  Tensor mean;                  // (D)     the points' mean
  Tensor components;            // (2, D)  unit directions of largest variance (row 1 is 0 when D = 1)
  Tensor projected;             // (N, 2)  (x − mean) · componentsᵀ
  Tensor explained;             // (2)     share of the total variance along each component, in [0, 1]
  float total_variance = 0.0f;  // sum of the per-dimension variances (divisor N)
};

// x: (N, D) points, N ≥ 1, 1 ≤ D ≤ Limits::kMaxWidth, every value finite with |v| ≤
// Limits::kMaxMagnitude. Each component's sign is fixed so its largest-magnitude entry is
// positive, so the picture does not flip between calls. Throws attn::Error naming x.
Projection2D pca2(const TensorView& x);

}  // namespace attn
