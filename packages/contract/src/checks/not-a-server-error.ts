// not_a_server_error: no answer is a 5xx, and every request gets an answer within --timeout.
import type { RoundTrip, Verdicts } from "../round-trip.js";
import type { ContractCheck } from "./check.js";

export const notAServerError: ContractCheck = { name: "not_a_server_error", covers: [] };

export function checkNotAServerError(exchange: RoundTrip, verdicts: Verdicts): void {
  const status = exchange.response!.status;
  if (status >= 500) verdicts.fail("not_a_server_error", exchange, `server error: status ${status}`);
  else verdicts.pass("not_a_server_error", exchange);
}

/** A request that got no answer at all (timeout, refused connection, reset). */
export function checkNoAnswer(exchange: RoundTrip, verdicts: Verdicts, message: string): void {
  verdicts.fail("not_a_server_error", exchange, `no response: ${message}`);
}
