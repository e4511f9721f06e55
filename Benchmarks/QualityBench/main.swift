// SPDX-License-Identifier: LGPL-2.1-or-later
// quality-bench: matte quality of the refine modes on rgbdtestsrc scenes with
// realistic depth artefacts (noise, holes, flying pixels, misregistration),
// run in-process through DepthMatter and scored against the scene's
// ground-truth matte (docs/quality.md).
//
//   swift run -c release quality-bench [seconds] [fps]
//
// Metrics (docs/quality.md), means over frames:
//   SAD   = sum |a - a*| / 1000 per frame
//   MSE   = mean (a - a*)^2 x 1e3
//   Grad  = sum (|grad a| - |grad a*|)^2 / 1000, Gaussian derivatives sigma = 1.4
//   IoU   at 0.5
//   dtSSD = sqrt(mean(((a_t - a_t-1) - (a*_t - a*_t-1))^2)) x 100
// plus "distractor" = pixels of the distractor keyed in (a > 0.5), and
// "hand out" = pixels inside the raised hand/arm (coverage 1 in the truth)
// keyed out (a < 0.5), summed over frames (sampled every 2nd pixel and row),
// and "hand out > 2 px inside": the same for hand pixels whose 5x5
// neighbourhood is fully covered (an edge 1-2 px off is not a lost hand).
//
// The code: Options.swift (the command line and the environment knobs),
// Render.swift (a scene's clip), Run.swift (a keyer run and its score),
// Metrics.swift (the figures), and a file per table: MainTable.swift,
// SceneTable.swift, SensorTable.swift, RealClips.swift (QB_CLIP).
import BenchSupport

// QB_CLIP: the real clips' table alone (it exits)
if let clipDirs = env("QB_CLIP") { realClipsTable(clipDirs) }
let allMet = mainTable()
if env("QB_NOSCENES") == nil && !sensorOnly { scenesTable() }
if env("QB_NOSENSOR") == nil { sensorTable() }

print("\ntargets for the default (SAD, Grad <= 0.3x original, IoU >= 0.99, dtSSD <= 0.5x original, no distractor in, no hand pixel more than 2 px inside its outline keyed out): \(allMet ? "met" : "NOT met") on every clip")
