/**
 * Reading an answer as the checks need it: its JSON object, its error code, a one-line
 * description, whether it was served or rate limited, and how many items its lists hold.
 */
import type { RoundTrip } from "../session/round-trip.js";

export function bodyObject(exchange: RoundTrip): Record<string, unknown> | undefined {
  const json = exchange.response?.json;
  return typeof json === "object" && json !== null && !Array.isArray(json)
    ? (json as Record<string, unknown>)
    : undefined;
}

/** Why a check that compares an answer with its documented response has nothing to compare with. */
export function undocumentedStatus(exchange: RoundTrip): string {
  return `status ${exchange.response!.status} is undocumented, so there is nothing to compare against`;
}

export function errorCode(exchange: RoundTrip): number | undefined {
  const code = bodyObject(exchange)?.code;
  return typeof code === "number" ? code : undefined;
}

export function describeAnswer(exchange: RoundTrip): string {
  if (!exchange.response) return exchange.error?.message ?? "no response";
  const body = bodyObject(exchange);
  const code = typeof body?.code === "number" ? ` code ${body.code}` : "";
  const msg = typeof body?.msg === "string" ? ` "${body.msg}"` : "";
  return `status ${exchange.response.status}${code}${msg}`;
}

export function isRateLimited(exchange: RoundTrip): boolean {
  const status = exchange.response?.status;
  return status === 429 || status === 418;
}

export function ok(exchange: RoundTrip): boolean {
  const status = exchange.response?.status;
  return status !== undefined && status >= 200 && status < 300;
}

/** Number of items of a list answer: the array's length, or each top-level array of an object. */
export function itemCounts(json: unknown): Record<string, number> | undefined {
  if (Array.isArray(json)) return { items: json.length };
  if (typeof json !== "object" || json === null) return undefined;
  const counts: Record<string, number> = {};
  for (const [key, value] of Object.entries(json)) if (Array.isArray(value)) counts[key] = value.length;
  return Object.keys(counts).length > 0 ? counts : undefined;
}
