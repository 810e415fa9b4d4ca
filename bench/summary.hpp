// The closing table of a two-run benchmark: the TLS 1.3 rows of the run with
// libcrypto as it comes and of the run with its AVX-512 masked, side by
// side, and a check that the mask reached libcrypto.
#pragma once

#include <vector>

#include "bench/report.hpp"

namespace stitch::bench {

void print_summary(const std::vector<ResultLine>& as_is, const std::vector<ResultLine>& masked);

}  // namespace stitch::bench
