/**
 * auth_enforcement. An operation whose `security` requires the API key without a signature must
 * refuse a request without (or with an unknown) key; one whose `security` accepts the key without
 * requiring it (market_data: `[{}, {apiKey: []}]`) must serve a request without key, and one with
 * an unknown key, as it serves a proper one. A signed operation without key, without or with a
 * wrong signature, with a stale, future or missing timestamp, must be refused with 4xx and the
 * error schema. x-signing's error codes are required where the spec names them (-1022 bad
 * signature, -1021 timestamp outside the window), each with the status of the response that
 * lists it (BadRequest's 400: a signing refusal is not the API key's 401); a signature or a
 * timestamp left out is a required parameter missing (x-refusals' missing-parameter).
 */

import { apiKeyOf, type ContractOperation, isSigned, requiresApiKey } from "../core/operations.js";
import type { AuthVariant, ParamList, Placement } from "../http/request.js";
import { encodeParams, otherCase } from "../http/request.js";
import { bodyObject, describeAnswer, ok } from "../kit/answers.js";
import {
  cannotCall,
  enabled,
  expectRefusal,
  expectServed,
  type RunContext,
  targetValues,
} from "../kit/context.js";
import type { OrderDesk, Placed } from "../kit/order-desk.js";
import { refusalOf } from "../kit/refusal-codes.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "auth_enforcement";

export const authEnforcement: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "auth",
  description: "requests without key, signature or a fresh timestamp are refused with 4xx + Error",
  covers: ["x-auth-class", "x-signing"],
  hooks: [
    { phase: "operation", run: authPass },
    {
      phase: "trading",
      run: {
        newOrder: authOrderProbes,
        cancel: (desk, target) => authCancelProbes(desk, target),
        cancelAll: authCancelAllProbes,
      },
    },
  ],
  seenToCatch: [
    "unsigned-order-accepted",
    "wrong-signature-accepted",
    "signature-over-query-only",
    "unknown-api-key-as-400",
    "timestamp-in-seconds-accepted",
    "recv-window-one-second-slack",
    "api-key-case-insensitive",
    "signing-refusals-as-401-unauthorized",
    "missing-timestamp-answered-outside-the-window",
  ],
};

/** The probes of the pass over an operation, after a properly authenticated control request. */
async function authPass(ctx: RunContext, operation: ContractOperation): Promise<void> {
  for (const refused of ctx.credentials?.refusedBefore ?? [])
    if (refused.op.operationId === operation.operationId)
      ctx.session.fail(
        CHECK,
        refused,
        `a properly signed request was refused (${describeAnswer(refused)}); the same credentials were accepted by ${ctx.credentials!.provenBy}`,
      );
  if (isSigned(operation) && !ctx.session.canSign) {
    ctx.session.recorder.skip(
      CHECK,
      operation.operationId,
      cannotCall(ctx, operation) ?? "needs credentials",
    );
    return;
  }
  await authProbes(ctx, operation, {
    params: () => encodeParams(operation, targetValues(operation, ctx)),
    control: "before",
  });
}

/** new_order's probes, each under a fresh client order id (one accepted by mistake rests). */
async function authOrderProbes(desk: OrderDesk): Promise<void> {
  await authProbes(desk.ctx, desk.ops.newOrder, {
    params: () => desk.freshOrderParams(),
    control: "none",
    onAnswer: desk.settle,
  });
}

/** cancel_order's probes, aimed at an open order (so an accepted probe shows: it cancels it). */
async function authCancelProbes(desk: OrderDesk, target: Placed | undefined): Promise<void> {
  const { cancelOrder } = desk.ops;
  if (target?.orderId === undefined) {
    desk.session.recorder.skip(CHECK, cancelOrder.operationId, "no open order to aim the probes at");
    return;
  }
  const targetId = target.orderId;
  await authProbes(desk.ctx, cancelOrder, {
    params: () => encodeParams(cancelOrder, { symbol: desk.symbol, orderId: targetId }),
    control: "none",
    onAccepted: (exchange) => {
      if (bodyObject(exchange)?.orderId === targetId) desk.ctx.ledger.closed(target.clientOrderId);
    },
  });
}

/** cancel_all_orders' probes on the desk's symbol (only sent where no other order rests). */
async function authCancelAllProbes(desk: OrderDesk): Promise<void> {
  const cancelAll = desk.ops.cancelAll;
  if (!cancelAll) return;
  await authProbes(desk.ctx, cancelAll, {
    params: () => desk.symbolParams(cancelAll),
    control: "none",
    onAccepted: desk.closeListed,
  });
}

interface AuthCase {
  label: string;
  auth: AuthVariant;
  code?: number | undefined;
  status?: number | undefined;
  needsCredentials: boolean;
  /** The request must be served, not refused; `why` says what makes it valid. */
  served?: boolean;
  why?: string;
  /** Where the parameters go, when the case needs a query and a body both. */
  placement?: Placement;
}

/** Whether the run's API key has a letter, so that the same key in the other case is another key. */
function keyHasLetters(ctx: RunContext): boolean {
  const key = ctx.session.credentials?.apiKey;
  return key !== undefined && otherCase(key) !== key;
}

function authCases(ctx: RunContext, operation: ContractOperation): AuthCase[] {
  const signing = ctx.session.model.signing;
  const key = (rule: "api-key-missing" | "api-key-invalid") => refusalOf(ctx, rule, operation.operationId);
  const badSignature = signingRefusal(operation, signing.invalidSignatureCode);
  const badTimestamp = signingRefusal(operation, signing.invalidTimestampCode);
  if (!isSigned(operation) && operation.authClass !== "none" && apiKeyOf(operation) !== "none") {
    const served = apiKeyOf(operation) === "optional";
    return [
      {
        label: "without API key",
        auth: { key: "none" },
        needsCredentials: false,
        served,
        ...key("api-key-missing"),
      },
      {
        label: "with an unknown API key",
        auth: { key: "wrong" },
        needsCredentials: false,
        served,
        ...key("api-key-invalid"),
      },
    ];
  }
  if (!isSigned(operation)) return [];
  return [
    {
      label: "signed, without API key",
      auth: { key: "none" },
      needsCredentials: true,
      ...key("api-key-missing"),
    },
    {
      label: "signed, with an unknown API key",
      auth: { key: "wrong" },
      needsCredentials: true,
      ...key("api-key-invalid"),
    },
    ...(keyHasLetters(ctx)
      ? [
          {
            label: "signed, with the API key's letters in the other case (keys are case-sensitive)",
            auth: { key: "other-case" as const },
            needsCredentials: true,
            ...key("api-key-invalid"),
          },
        ]
      : []),
    // Each a required parameter of the signing envelope left out: x-refusals' missing-parameter.
    {
      label: "without signature",
      auth: { signature: "none" },
      needsCredentials: true,
      ...refusalOf(
        ctx,
        "missing-parameter",
        operation.operationId,
        ctx.session.model.signing.signatureParameter,
      ),
    },
    {
      label: "with a wrong signature",
      auth: { signature: "wrong" },
      ...badSignature,
      needsCredentials: true,
    },
    {
      label: "with a stale timestamp",
      auth: { timestamp: "stale" },
      ...badTimestamp,
      needsCredentials: true,
    },
    {
      label: "with a timestamp 30 s in the future",
      auth: { timestamp: "future" },
      ...badTimestamp,
      needsCredentials: true,
    },
    {
      label: "with the timestamp in seconds",
      auth: { timestamp: "seconds" },
      ...badTimestamp,
      needsCredentials: true,
    },
    {
      label: "without timestamp",
      auth: { timestamp: "none" },
      needsCredentials: true,
      ...refusalOf(
        ctx,
        "missing-parameter",
        operation.operationId,
        ctx.session.model.signing.timestampParameter,
      ),
    },
    ...signingProbes(ctx, operation),
  ];
}

/**
 * A signature over only part of what was sent must be refused (x-signing: the payload is the
 * query followed by the body); and where recvWindow is declared, a timestamp older than it.
 */
function signingProbes(ctx: RunContext, operation: ContractOperation): AuthCase[] {
  const signing = ctx.session.model.signing;
  const badSignature = signingRefusal(operation, signing.invalidSignatureCode);
  const badTimestamp = signingRefusal(operation, signing.invalidTimestampCode);
  const cases: AuthCase[] = [];
  if (operation.acceptsFormBody && operation.parameters.length >= 2) {
    for (const [mode, words] of [
      ["query-only", "over the query alone while a body is present"],
      ["body-only", "over the body alone while the query carries parameters"],
    ] as const) {
      cases.push({
        label: `signed ${words}`,
        auth: { signature: mode },
        placement: "split",
        ...badSignature,
        needsCredentials: true,
      });
    }
  }
  if (operation.parameters.some((p) => p.name === signing.recvWindowParameter)) {
    cases.push({
      label: `with a timestamp 3 s old and ${signing.recvWindowParameter}=1000`,
      auth: { recvWindow: 1000, timestampShiftMs: -3000 },
      ...badTimestamp,
      needsCredentials: true,
    });
    // The largest window is kept to the millisecond, give or take what the run knows of the target's
    // clock: a timestamp older than it by more than that is refused (a server that adds slack, or
    // scales the window, serves it).
    const edge = windowEdgeMarginMs(ctx);
    if (edge !== undefined && signing.recvWindowMaximum > 0)
      cases.push({
        label: `with a timestamp ${edge} ms older than ${signing.recvWindowParameter}=${signing.recvWindowMaximum} (its maximum) allows`,
        auth: {
          recvWindow: signing.recvWindowMaximum,
          timestampShiftMs: -(signing.recvWindowMaximum + edge),
        },
        ...badTimestamp,
        needsCredentials: true,
      });
    // The window is applied as sent in both directions: a timestamp past the default window but
    // inside the largest one must be served (a server that caps recvWindow at its default fails).
    const age = signing.recvWindowDefault + 2000;
    if (signing.recvWindowMaximum > age + 10_000)
      cases.push({
        label: `with a timestamp ${age / 1000} s old and ${signing.recvWindowParameter}=${signing.recvWindowMaximum}`,
        auth: { recvWindow: signing.recvWindowMaximum, timestampShiftMs: -age },
        served: true,
        why: `${signing.recvWindowParameter} is applied as sent, up to its maximum`,
        needsCredentials: true,
      });
  }
  return cases;
}

/**
 * What a refusal for the signature or the timestamp must carry: x-signing's `code`, and the
 * status of the one 4xx response of the operation whose description names that code (BadRequest
 * lists -1021 and -1022; Unauthorized names the API key's codes). x-signing states codes only, so
 * the status is read where the spec states it; none (any 4xx) when no response, or several, names it.
 */
export function signingRefusal(
  operation: { responses: ReadonlyArray<{ status: string; description: string }> },
  code: number | undefined,
): { code?: number; status?: number } {
  if (code === undefined) return {};
  // The code as a whole number of the text: -1021 names neither -10210 nor 1021.
  const named = new RegExp(`(?<![\\w-])${String(code)}(?!\\d)`);
  const naming = operation.responses.filter((r) => /^4\d\d$/.test(r.status) && named.test(r.description));
  return naming.length === 1 ? { code, status: Number(naming[0]!.status) } : { code };
}

/** Slack for the target's clock drifting from the reading the run signs with, over a run. */
const CLOCK_DRIFT_MS = 10;

/**
 * How much older than the window a timestamp must be for any correct server to refuse it: more
 * than the run's reading of the target's clock may be off (half its round trip), with room for
 * drift; the request's own transit only ages it further. Undefined without a clock reading.
 */
export function windowEdgeMarginMs(ctx: Pick<RunContext, "clock">): number | undefined {
  const halfTrip = ctx.clock?.reading.halfTrip;
  return halfTrip === undefined ? undefined : Math.ceil(2 * halfTrip) + CLOCK_DRIFT_MS;
}

export interface AuthProbeOptions {
  /** Parameters of a request that succeeds when properly authenticated (fresh per case for new_order). */
  params: () => ParamList;
  placement?: Placement;
  /** Sent first, properly authenticated; the probes are only conclusive when it succeeds. */
  control?: "before" | "none";
  /** Called when a probe was wrongly accepted (to register a created order). */
  onAccepted?: (exchange: RoundTrip) => void;
  /** Called with every probe's exchange, accepted or not. */
  onAnswer?: (exchange: RoundTrip) => void;
}

export async function authProbes(
  ctx: RunContext,
  operation: ContractOperation,
  options: AuthProbeOptions,
): Promise<void> {
  if (!enabled(ctx, CHECK)) return;
  const { session } = ctx;
  const cases = authCases(ctx, operation);
  if (cases.length === 0) {
    session.recorder.skip(
      CHECK,
      operation.operationId,
      `x-auth-class ${operation.authClass}: nothing to enforce`,
    );
    return;
  }
  // A required key needs the credentials for the control request, signed classes the secret too.
  const canControl = isSigned(operation)
    ? session.canSign
    : !requiresApiKey(operation) || session.credentials !== undefined;
  if (options.control === "before" && canControl) {
    const control = await session.call(
      {
        op: operation,
        params: options.params(),
        ...(options.placement ? { placement: options.placement } : {}),
      },
      "auth control: properly authenticated",
    );
    if (!ok(control)) {
      session.recorder.skip(
        CHECK,
        operation.operationId,
        `the properly authenticated control request was refused (${describeAnswer(control)}), so refusals prove nothing`,
      );
      return;
    }
    options.onAccepted?.(control);
  }
  for (const c of cases) {
    if (c.needsCredentials && !session.canSign) {
      session.recorder.skip(CHECK, operation.operationId, "signed requests need --api-key and --api-secret");
      continue;
    }
    const exchange = await session.call(
      {
        op: operation,
        params: options.params(),
        auth: c.auth,
        ...(c.placement
          ? { placement: c.placement }
          : options.placement
            ? { placement: options.placement }
            : {}),
      },
      `auth: ${c.label}`,
    );
    if (c.served) {
      expectServed(ctx, CHECK, exchange, `a request ${c.label} (${c.why ?? "the API key is not required"})`);
      options.onAnswer?.(exchange);
      continue;
    }
    const accepted = expectRefusal(ctx, CHECK, exchange, {
      what: `a request ${c.label}`,
      code: c.code,
      status: c.status,
    });
    if (accepted) options.onAccepted?.(exchange);
    options.onAnswer?.(exchange);
  }
}
