#include "stats/session_part.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "stats/distributions.h"

namespace trickbench {
namespace stats {

Speedup WithSessionPart(const Speedup& s, double part_sd, double part_dof, double confidence) {
  if (!std::isfinite(part_sd) || part_sd < 0) {
    throw std::invalid_argument("WithSessionPart: part_sd must be finite and >= 0");
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("WithSessionPart: confidence must be in (0, 1)");
  }
  if (part_sd == 0) return s;
  Speedup out = s;
  const double v1 = s.log_se * s.log_se, v2 = part_sd * part_sd;
  out.log_se = std::sqrt(v1 + v2);
  // Welch-Satterthwaite: a term with no degrees of freedom given counts as exact.
  const double denom = (s.dof > 0 ? v1 * v1 / s.dof : 0) + (part_dof > 0 ? v2 * v2 / part_dof : 0);
  const double dof = denom > 0 ? std::max(1.0, (v1 + v2) * (v1 + v2) / denom)
                               : std::numeric_limits<double>::infinity();
  out.dof = std::isfinite(dof) ? dof : 0;
  const double t = StudentTQuantile(1 - (1 - confidence) / 2, dof);
  const double estimate = std::log(s.speedup);
  out.low = std::exp(estimate - t * out.log_se);
  out.high = std::exp(estimate + t * out.log_se);
  out.half_width = std::max(out.high / out.speedup - 1, 1 - out.low / out.speedup);
  out.p_value = std::min(1.0, 2 * (1 - StudentTCdf(std::fabs(estimate / out.log_se), dof)));
  out.p_method = "t";
  return out;
}

}  // namespace stats
}  // namespace trickbench
