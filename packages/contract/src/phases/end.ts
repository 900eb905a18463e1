// The end of the run, before the clean-up: the checks hooked on "end" (what must hold of the whole
// run, such as a clock that moved on). An operation that stopped answering ends only its check.
import { checksAt } from "../checks/index.js";
import type { RunContext } from "../kit/context.js";
import { PassStopped } from "../session/session.js";

export async function endPhase(ctx: RunContext): Promise<void> {
  ctx.session.releaseHeldBack();
  for (const check of checksAt("end")) {
    if (!ctx.session.recorder.enabled(check.name)) continue;
    await check.hook.run(ctx).catch((error: unknown) => {
      if (!(error instanceof PassStopped)) throw error;
    });
  }
}
