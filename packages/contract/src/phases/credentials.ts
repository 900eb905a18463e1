/**
 * Credentials are proven before any check: signed reads (the signed GETs with the fewest
 * required parameters). Refused by every read tried, a key or signature stops the run with exit 2
 * naming the code, so a CI job that lost its secrets never goes green; accepted by one after
 * another refused them, the refusal is the target's fault (exit 1). --allow-trading without
 * credentials is a usage error for the same reason.
 */

import { UsageError } from "../core/errors.js";
import { isSigned, methodOf } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { describeAnswer } from "../kit/answers.js";
import type { CredentialProof } from "../kit/context.js";
import { requiredValues, type ValueContext } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { Session } from "../session/session.js";

export function requireCredentialsForTrading(allowTrading: boolean | undefined, hasSecret: boolean): void {
  if (allowTrading && !hasSecret) {
    throw new UsageError(
      "--allow-trading needs --api-key and --api-secret: without them no order can be placed, and the trading checks would pass unexercised",
    );
  }
}

/** Signed reads tried before the credentials are called refused. */
const READS_TRIED = 3;

/**
 * Proves the credentials with signed reads, fewest required parameters first. The first one
 * served proves them; a read refused before it is then the target's fault (a properly signed
 * request refused: auth_enforcement fails it), and the run goes on (exit 1). When every
 * read tried refuses them, the run stops with a usage error (exit 2) naming the answer.
 */
export async function proveCredentials(
  session: Session,
  values: ValueContext,
): Promise<CredentialProof | undefined> {
  if (!session.canSign) return undefined;
  const reads = session.model.operations
    .filter((o) => isSigned(o) && methodOf(o) === "GET")
    .sort(
      (a, b) => a.parameters.filter((p) => p.required).length - b.parameters.filter((p) => p.required).length,
    )
    .slice(0, READS_TRIED);
  const refused: RoundTrip[] = [];
  for (const read of reads) {
    const exchange = await session.call(
      { op: read, params: encodeParams(read, requiredValues(read, values)) },
      "probe: credentials (one signed read)",
      { essential: true },
    );
    if (!refusesCredentials(exchange)) return { provenBy: read.operationId, refusedBefore: refused };
    refused.push(exchange);
  }
  const first = refused[0];
  if (!first) return undefined;
  throw new UsageError(
    `the credentials were refused: ${first.op.operationId} answered ${describeAnswer(first)}${
      refused.length > 1
        ? ` (and so did ${refused
            .slice(1)
            .map((e) => e.op.operationId)
            .join(", ")})`
        : ""
    }; check --api-key and --api-secret (and the clock)`,
  );
}

/**
 * A 4xx that is not 404/405 refuses the credentials; 404, 405 and 501 say the operation is not
 * implemented (judged as such later), a 5xx or no answer is the server's fault judged elsewhere.
 */
function refusesCredentials(exchange: RoundTrip): boolean {
  const status = exchange.response?.status;
  return status !== undefined && status >= 400 && status < 500 && ![404, 405].includes(status);
}
