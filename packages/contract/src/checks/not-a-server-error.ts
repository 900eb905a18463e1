// not_a_server_error: no answer is a 5xx, and every request gets an answer within --timeout.
import type { RoundTrip, Verdicts } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "not_a_server_error";

export const notAServerError: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "5xx",
  description: "no response is a 5xx, and every request gets an answer within --timeout",
  covers: [],
  hooks: [
    {
      phase: "answer",
      judge: (exchange, _declared, verdicts) => checkNotAServerError(exchange, verdicts),
      noAnswer: (exchange, verdicts, message) => checkNoAnswer(exchange, verdicts, message),
    },
  ],
  seenToCatch: ["server-error-on-avg-price"],
};

export function checkNotAServerError(exchange: RoundTrip, verdicts: Verdicts): void {
  const status = exchange.response!.status;
  if (status >= 500) verdicts.fail(CHECK, exchange, `server error: status ${status}`);
  else verdicts.pass(CHECK, exchange);
}

/** A request that got no answer at all (timeout, refused connection, reset). */
export function checkNoAnswer(exchange: RoundTrip, verdicts: Verdicts, message: string): void {
  verdicts.fail(CHECK, exchange, `no response: ${message}`);
}
