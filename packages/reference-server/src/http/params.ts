/**
 * Reading parameters from the query string and the form body exactly as the live API does:
 * `name=value` pairs joined by `&`, percent-encoded (`+` is a space). A name may appear once per
 * part; when it appears in both the query and the body the query wins. Empty values count as
 * "not sent". The signed payload is kept as the raw bytes received, minus the signature pair (its
 * name comes from the spec's `x-signing`).
 */
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
  /** Names sent in this part, empty values included. */
  names: Set<string>;
  /** The part's raw pairs except the signature, joined by `&` as received. */
  unsigned: string;
}

const EMPTY_PART: ParsedPart = { values: new Map(), names: new Set(), unsigned: "" };

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
    return { values: fromQuery.values, signedPayload: fromQuery.unsigned, sentCount: fromQuery.names.size };
  }
  const fromBody = parsePart(body, maxParams, signatureParameter);
  const values = new Map(fromBody.values);
  for (const [name, value] of fromQuery.values) values.set(name, value);
  if (values.size > maxParams) throw tooManyParams();
  const sentCount = new Set([...fromQuery.names, ...fromBody.names]).size;
  return { values, signedPayload: fromQuery.unsigned + fromBody.unsigned, sentCount };
}

function parsePart(raw: string, maxParams: number, signatureParameter: string): ParsedPart {
  const pairs = raw.split("&");
  if (pairs.length > maxParams * 2) throw tooManyParams();
  const values = new Map<string, string>();
  const seen = new Set<string>();
  let signatureAt = -1;
  for (const [index, pair] of pairs.entries()) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const name = decodeComponent(equals < 0 ? pair : pair.slice(0, equals), undefined);
    const value = equals < 0 ? "" : decodeComponent(pair.slice(equals + 1), name);
    if (seen.has(name)) throw duplicateParam();
    seen.add(name);
    if (name === signatureParameter) signatureAt = index;
    if (value !== "") values.set(name, value);
  }
  if (values.size > maxParams) throw tooManyParams();
  // Everything but the signature pair, byte for byte (stray `&`s included).
  if (signatureAt >= 0) pairs.splice(signatureAt, 1);
  return { values, names: seen, unsigned: signatureAt >= 0 ? pairs.join("&") : raw };
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
