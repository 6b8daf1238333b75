// A speedup's standard error with the part that every process of one session shares,
// measured elsewhere (a noise study's between-session sd), added to it.
//
//   Speedup s = EstimateSpeedup(log_ratios);           // its interval is over processes
//   Speedup wide = WithSessionPart(s, /*part_sd=*/0.02, /*part_dof=*/11);
//   Change c = CompareSpeedups(WithSessionPart(old_s, 0.02, 11), wide);
//
// Why: a run's interval is over its processes, so what all of them share (the machine's
// state that hour, what the host's neighbours do to memory bandwidth) is not in it. Two
// runs then differ by two draws of that part, which compare reads as a change: false
// alarms beyond alpha for exactly the settings whose part nears the min effect
// (noise_study.h SessionSpread). Adding the part's variance to each side's puts both
// draws into the change's standard error. The part is itself estimated from a few
// sessions, so its degrees of freedom enter the Welch-Satterthwaite sum: an sd from 3
// sessions widens the t quantile more than one from 12.
#pragma once

#include "stats/speedup.h"

namespace trickbench {
namespace stats {

// `s` with log_se = sqrt(log_se^2 + part_sd^2), dof by Welch-Satterthwaite over the two
// parts (part_dof <= 0: the part is known exactly), and the interval [low, high],
// half_width and the t test's p_value (p_method "t") at `confidence` recomputed from
// them. The point estimate, the counts, imprecise and the sds are as measured: they
// describe the run. part_sd 0 returns `s` unchanged. Throws std::invalid_argument for
// a part_sd that is negative or not finite.
Speedup WithSessionPart(const Speedup& s, double part_sd, double part_dof,
                        double confidence = 0.95);

}  // namespace stats
}  // namespace trickbench
