/**
 * Reading parameters from the query string and the form body exactly as the live API does:
 * `name=value` pairs joined by `&`, percent-encoded (`+` is a space). A name may appear once per
 * part; when it appears in both the query and the body the query wins. Empty values count as
 * "not sent". The signed payload is kept as the raw bytes received, minus the signature pair (its
 * name comes from the spec's `x-signing`).
 */
import type { IncomingHttpHeaders } from "node:http";
import { duplicateParam, malformedPercentEncoding, tooManyParams } from "../errors.js";

/** The parameters of one request. */
export interface RequestParams {
  /** Decoded non-empty values by name; the query wins over the body. */
  readonly values: ReadonlyMap<string, string>;
  /** Query string then form body as received, without the `signature` pair and with no separator. */
  readonly signedPayload: string;
  /** How many parameters were sent, empty ones and `signature` included (the live API's -1104 counts them). */
  readonly sentCount: number;
}

interface ParsedPart {
  values: Map<string, string>;
  /** Names sent in this part with an empty value (none: undefined; most requests send none). */
  empties: Set<string> | undefined;
  /** The part's raw pairs except the signature, joined by `&` as received. */
  unsigned: string;
}

const EMPTY_PART: ParsedPart = { values: new Map(), empties: undefined, unsigned: "" };

/** How many names the part holds, empty values included. */
function sentIn(part: ParsedPart): number {
  return part.values.size + (part.empties?.size ?? 0);
}

/** The part's names, empty values included. */
function namesOf(part: ParsedPart): string[] {
  return [...part.values.keys(), ...(part.empties ?? [])];
}

/**
 * Parses the raw query string (without `?`) and the raw form body (empty when there is none);
 * `signatureParameter` is left out of the signed payload.
 */
export function readParams(
  query: string,
  body: string,
  maxParams: number,
  signatureParameter: string,
): RequestParams {
  const fromQuery = query === "" ? EMPTY_PART : parsePart(query, maxParams, signatureParameter);
  if (body === "") {
    return { values: fromQuery.values, signedPayload: fromQuery.unsigned, sentCount: sentIn(fromQuery) };
  }
  const fromBody = parsePart(body, maxParams, signatureParameter);
  // A signed order usually comes as a form body alone: its part is the whole request.
  if (fromQuery === EMPTY_PART) {
    return { values: fromBody.values, signedPayload: fromBody.unsigned, sentCount: sentIn(fromBody) };
  }
  const values = new Map(fromBody.values);
  for (const [name, value] of fromQuery.values) values.set(name, value);
  if (values.size > maxParams) throw tooManyParams();
  const sentCount = new Set([...namesOf(fromQuery), ...namesOf(fromBody)]).size;
  return { values, signedPayload: fromQuery.unsigned + fromBody.unsigned, sentCount };
}

/**
 * One part's pairs, read in place (offsets into `raw`, no array of pairs): the same checks in the
 * same order as splitting on `&` would give, and the unsigned text byte for byte.
 */
function parsePart(raw: string, maxParams: number, signatureParameter: string): ParsedPart {
  if (countPairs(raw) > maxParams * 2) throw tooManyParams();
  const values = new Map<string, string>();
  // A name is kept in `values` or, sent empty, in `empties`: a repeat is found in one of the two.
  let empties: Set<string> | undefined;
  let signatureStart = -1;
  let signatureEnd = -1;
  // Most requests escape nothing: then no name or value needs looking at for escapes.
  const escaped = raw.indexOf("%") >= 0 || raw.indexOf("+") >= 0;
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf("&", start);
    if (end < 0) end = raw.length;
    if (end > start) {
      const equals = raw.indexOf("=", start);
      const hasValue = equals >= 0 && equals < end;
      const rawName = raw.slice(start, hasValue ? equals : end);
      const name = escaped ? decodeComponent(rawName, undefined) : rawName;
      const rawValue = hasValue ? raw.slice(equals + 1, end) : "";
      const value = escaped && hasValue ? decodeComponent(rawValue, name) : rawValue;
      if (values.has(name) || empties?.has(name)) throw duplicateParam();
      if (name === signatureParameter) {
        signatureStart = start;
        signatureEnd = end;
      }
      if (value !== "") {
        values.set(name, value);
      } else {
        empties ??= new Set();
        empties.add(name);
      }
    }
    start = end + 1;
  }
  if (values.size > maxParams) throw tooManyParams();
  return { values, empties, unsigned: withoutPair(raw, signatureStart, signatureEnd) };
}

/** How many `&`-separated pairs (empty ones included) the text holds. */
function countPairs(raw: string): number {
  let count = 1;
  for (let at = raw.indexOf("&"); at >= 0; at = raw.indexOf("&", at + 1)) count += 1;
  return count;
}

/** The text without the pair at [start, end) and one of the `&`s around it (all of it when start < 0). */
function withoutPair(raw: string, start: number, end: number): string {
  if (start < 0) return raw;
  if (end >= raw.length) return start === 0 ? "" : raw.slice(0, start - 1);
  return raw.slice(0, start) + raw.slice(end + 1);
}

const NEEDS_DECODING = /[%+]/;

/** Percent-decoding with `+` as space; malformed escapes are -1100 (illegal characters). */
function decodeComponent(text: string, paramName: string | undefined): string {
  if (!NEEDS_DECODING.test(text)) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    const where = paramName === undefined ? "a parameter name" : `parameter '${paramName}'`;
    throw malformedPercentEncoding(where);
  }
}

type WithParameters = { readonly parameters: readonly { readonly name: string; readonly in: string }[] };

/** Each operation's header parameters, by the spec's name and the lower-case name Node keys headers by. */
const headerNamesByOperation = new WeakMap<WithParameters, ReadonlyArray<readonly [string, string]>>();

function headerNamesOf(operation: WithParameters): ReadonlyArray<readonly [string, string]> {
  let names = headerNamesByOperation.get(operation);
  if (names === undefined) {
    names = operation.parameters
      .filter((p) => p.in === "header")
      .map((p) => [p.name, p.name.toLowerCase()] as const);
    headerNamesByOperation.set(operation, names);
  }
  return names;
}

/**
 * The operation's declared header parameters the request carries (`in: header`), by the spec's
 * name: request headers are matched without regard to case, and an empty one counts as not sent,
 * as an empty query value does. They are not part of the signed payload.
 */
export function headerParams(
  operation: WithParameters,
  headers: IncomingHttpHeaders,
): Map<string, string> | undefined {
  let found: Map<string, string> | undefined;
  for (const [name, key] of headerNamesOf(operation)) {
    const value = headers[key];
    const text = Array.isArray(value) ? value.join(", ") : value;
    if (text === undefined || text === "") continue;
    found ??= new Map();
    found.set(name, text);
  }
  return found;
}
