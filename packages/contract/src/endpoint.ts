/**
 * Turning a FHIR Endpoint record into a test target: `address` is the base URL, each `header`
 * entry ("Name: value") is sent with every request, `status` and `period` say whether the
 * endpoint may be tested now, and status `test` allows trading.
 */
import { readFileSync } from "node:fs";
import { validateEndpoint } from "@marketapi/validators";
import { UsageError } from "./core/errors.js";

export interface EndpointTarget {
  baseUrl: string;
  headers: Record<string, string>;
  /** Status `test`: creating and cancelling orders is allowed. */
  trading: boolean;
  status: string;
  label: string;
}

type Json = Record<string, unknown>;

const FHIR_DATE_TIME =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/**
 * The instants a FHIR dateTime covers: a partial value ("2026", "2026-01", "2026-01-01") stands
 * for the whole year, month or day. Values without a time zone are read as UTC.
 */
export function dateTimeRange(text: string): { start: number; end: number } | undefined {
  const m = FHIR_DATE_TIME.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = m[2] === undefined ? undefined : Number(m[2]) - 1;
  const day = m[3] === undefined ? undefined : Number(m[3]);
  if (month === undefined) return { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1) };
  if (day === undefined) return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1) };
  if (m[4] === undefined) return { start: Date.UTC(year, month, day), end: Date.UTC(year, month, day + 1) };
  const instant = Date.parse(
    `${text.slice(0, 10)}T${m[4]}:${m[5]}:${m[6] ?? "00"}${m[7] ?? ""}${m[8] ?? "Z"}`,
  );
  if (Number.isNaN(instant)) return undefined;
  return { start: instant, end: instant + (m[6] === undefined ? 60_000 : m[7] === undefined ? 1000 : 1) };
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Parses "Name: value" header entries; throws a UsageError naming the first malformed entry. */
export function parseHeaderEntries(entries: readonly unknown[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of entries) {
    const text = String(entry);
    const colon = text.indexOf(":");
    const name = colon < 0 ? "" : text.slice(0, colon).trim();
    if (colon < 0 || !HEADER_NAME.test(name)) {
      throw new UsageError(
        `header entry ${JSON.stringify(text)} is not of the form "Name: value", so it cannot be sent as an HTTP header`,
      );
    }
    headers[name] = text.slice(colon + 1).trim();
  }
  return headers;
}

/** Checks an Endpoint record and derives the target, or throws a UsageError saying why it cannot be used. */
export function endpointTarget(record: unknown, now: number, source = "the Endpoint record"): EndpointTarget {
  const result = validateEndpoint(record);
  if (!result.valid) {
    const lines = result.errors.slice(0, 5).map((e) => `  ${e.message}`);
    const more = result.errors.length > 5 ? [`  … and ${result.errors.length - 5} more`] : [];
    throw new UsageError([`${source} is not a valid FHIR Endpoint record:`, ...lines, ...more].join("\n"));
  }
  const endpoint = record as Json;
  const label =
    typeof endpoint.name === "string"
      ? endpoint.name
      : typeof endpoint.id === "string"
        ? endpoint.id
        : source;
  const status = typeof endpoint.status === "string" ? endpoint.status : undefined;
  if (status === undefined) {
    throw new UsageError(
      `${source} has no status; only an endpoint with status "active" or "test" is tested`,
    );
  }
  if (status !== "active" && status !== "test") {
    throw new UsageError(
      `${source} has status "${status}"; only an endpoint with status "active" or "test" is tested (refusing to run)`,
    );
  }
  const period = endpoint.period as Json | undefined;
  if (period) {
    const start = typeof period.start === "string" ? dateTimeRange(period.start) : undefined;
    const end = typeof period.end === "string" ? dateTimeRange(period.end) : undefined;
    if (start && now < start.start) {
      throw new UsageError(
        `${source} is not in service yet: its period starts ${period.start} (refusing to run)`,
      );
    }
    if (end && now >= end.end) {
      throw new UsageError(`${source} is out of service: its period ended ${period.end} (refusing to run)`);
    }
  }
  const address = typeof endpoint.address === "string" ? endpoint.address : undefined;
  if (address === undefined) throw new UsageError(`${source} has no address to test`);
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new UsageError(`${source} has address ${JSON.stringify(address)}, which is not an http(s) URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${source} has address ${JSON.stringify(address)}, which is not an http(s) URL`);
  }
  const headers = Array.isArray(endpoint.header) ? parseHeaderEntries(endpoint.header) : {};
  return { baseUrl: address.replace(/\/+$/, ""), headers, trading: status === "test", status, label };
}

/** Reads and checks an Endpoint record file. */
export function loadEndpointFile(file: string, now: number): EndpointTarget {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read --endpoint ${file}: ${(error as Error).message}`);
  }
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--endpoint ${file} is not JSON: ${(error as Error).message}`);
  }
  return endpointTarget(record, now, `Endpoint ${file}`);
}
