// The checks run on every answer, whatever the request was for: each check whose hook is
// "answer", in the order of CHECKS, given the documented response the status falls under; and
// on a request that got no answer, each such check that judges that.
import { ANSWER_CHECKS } from "../checks/index.js";
import { declaredResponse } from "../core/operations.js";
import type { AnswerJudge } from "../session/round-trip.js";

export const answerJudge: AnswerJudge = {
  answer(exchange, verdicts) {
    const declared = declaredResponse(exchange.op, exchange.response!.status);
    for (const check of ANSWER_CHECKS) check.hook.judge(exchange, declared, verdicts);
  },
  noAnswer(exchange, verdicts, message) {
    for (const check of ANSWER_CHECKS) check.hook.noAnswer?.(exchange, verdicts, message);
  },
};
