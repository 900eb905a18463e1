// The exploration phase: after the behaviour phase, the checks hooked on "exploration" (generated
// sequences of order operations), within the run's exploration budget.
import { checksAt } from "../checks/index.js";
import type { ExplorationSummary } from "../explore/index.js";
import type { RunContext } from "../kit/context.js";

export async function explorationPhase(ctx: RunContext): Promise<ExplorationSummary | undefined> {
  let summary: ExplorationSummary | undefined;
  for (const check of checksAt("exploration")) summary = (await check.hook.run(ctx)) ?? summary;
  return summary;
}
