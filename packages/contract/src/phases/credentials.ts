/**
 * Credentials are proven before any check: one signed read (the signed GET with the fewest
 * required parameters). A refused key or signature stops the run with exit 2 naming the code, so
 * a CI job that lost its secrets never goes green; --allow-trading without credentials is a usage
 * error for the same reason.
 */

import { UsageError } from "../core/errors.js";
import { isSigned, methodOf } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { describeAnswer } from "../kit/answers.js";
import { requiredValues, type ValueContext } from "../kit/values.js";
import type { Session } from "../session/session.js";

export function requireCredentialsForTrading(allowTrading: boolean | undefined, hasSecret: boolean): void {
  if (allowTrading && !hasSecret) {
    throw new UsageError(
      "--allow-trading needs --api-key and --api-secret: without them no order can be placed, and the trading checks would pass unexercised",
    );
  }
}

export async function proveCredentials(session: Session, values: ValueContext): Promise<string | undefined> {
  if (!session.canSign) return undefined;
  const read = session.model.operations
    .filter((o) => isSigned(o) && methodOf(o) === "GET")
    .sort(
      (a, b) => a.parameters.filter((p) => p.required).length - b.parameters.filter((p) => p.required).length,
    )[0];
  if (!read) return undefined;
  const exchange = await session.call(
    { op: read, params: encodeParams(read, requiredValues(read, values)) },
    "probe: credentials (one signed read)",
    { essential: true },
  );
  const status = exchange.response?.status;
  // 404, 405 and 501 say the operation is not implemented (judged as such later), not that the
  // credentials are wrong.
  if (status === undefined || status < 400 || status >= 500 || [404, 405].includes(status))
    return read.operationId;
  throw new UsageError(
    `the credentials were refused: ${read.operationId} answered ${describeAnswer(exchange)}; check --api-key and --api-secret (and the clock)`,
  );
}
