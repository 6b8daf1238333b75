// The statistical thresholds every report states (report.json "statistics") and
// reports/SCHEMA.md explains: one place, read by the grading, the claims and the printers.
#pragma once

namespace trickbench {
namespace reports {

// The statistical thresholds every report states (and SCHEMA.md explains).
inline constexpr double kAlpha = 0.05;               // test level; intervals are 1 - alpha
inline constexpr double kImpreciseHalfWidth = 0.10;  // relative half-width above = imprecise
// The word that marks an imprecise result wherever it appears: never hidden.
inline constexpr char kImpreciseMark[] = "imprecise";
inline constexpr double kNoEffectBand = 0.05;  // |speedup - 1| within 5 % = no effect
// Shown beside a variant's times when reached: it allocates fresh pages (whose faults
// cost more than many kernels) or it was preempted during most samples.
inline constexpr double kManyFaultsPerIteration = 1;
inline constexpr double kManySwitchesPerSample = 1;
// On a CUDA device, host time issuing an iteration at or above this share of its device
// time: the device waited for launches (host-bound), so a trick that saves device work
// may show no speedup there.
inline constexpr double kHostBoundShare = 0.8;

}  // namespace reports
}  // namespace trickbench
