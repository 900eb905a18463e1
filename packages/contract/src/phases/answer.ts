// The checks run on every answer, whatever the request was for: each check whose hook is
// "answer", in the order of CHECKS, given the documented response the status falls under.
import { declaredResponse } from "../operations.js";
import type { RoundTrip, Verdicts } from "../round-trip.js";
import { ANSWER_CHECKS } from "./index.js";

export function checkAnswer(exchange: RoundTrip, verdicts: Verdicts): void {
  const declared = declaredResponse(exchange.op, exchange.response!.status);
  for (const check of ANSWER_CHECKS) check.hook.judge(exchange, declared, verdicts);
}
