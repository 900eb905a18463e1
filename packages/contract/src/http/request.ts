/**
 * The tester's own raw request builder. It can write anything a server might receive, including
 * what a typed client refuses to send (missing parameters, wrong types, no or bad signatures,
 * stale timestamps), and it signs exactly the bytes it sends.
 */
import type { ContractOperation, ContractParameter, ContractSigning } from "../core/operations.js";
import { isSigned, methodOf, needsApiKey } from "../core/operations.js";
import { corruptSignature, hmacHex } from "./signing.js";

export interface Credentials {
  apiKey: string;
  apiSecret: string;
}

/** Where the parameters travel (POST/DELETE operations with x-parameter-placement only). */
export type Placement = "query" | "body" | "split";

/** How the request is authenticated; each field defaults to what the operation's class needs. */
export interface AuthVariant {
  /**
   * The API key header: the real key, none, a key the server cannot know, or the real key with
   * the case of each of its letters swapped (keys are case-sensitive).
   */
  key?: "valid" | "none" | "wrong" | "other-case";
  /**
   * The signature: correct, absent, valid hex that does not match, or computed over only part of
   * what is sent (the query alone while a body is present, or the body alone).
   */
  signature?: "valid" | "none" | "wrong" | "query-only" | "body-only" | "upper-case";
  /** The timestamp: current server time, too old, too far ahead, or absent. */
  /** "seconds": the current time in seconds, as a client that forgot the unit would send it. */
  timestamp?: "now" | "stale" | "future" | "seconds" | "none";
  /** A recvWindow parameter to add to the signing envelope. */
  recvWindow?: number;
  /** Extra milliseconds added to the timestamp (negative: older). */
  timestampShiftMs?: number;
  /** The timestamp in epoch microseconds (with a part below the millisecond), as `x-epoch-time` allows. */
  timestampInMicroseconds?: boolean;
}

/** The part below the millisecond of a timestamp sent in microseconds (any value from 0 to 999). */
const SUB_MILLISECOND_US = 123;

/** Parameter name and text value, in sending order (a name may repeat). */
export type ParamList = Array<[string, string]>;

export interface RequestPlan {
  op: ContractOperation;
  params: ParamList;
  placement?: Placement;
  auth?: AuthVariant;
  /** How the bytes are written, where a check tries the wire's own variants (default: standard). */
  wire?: WireVariant;
  /** Keyed and signed as another account (a second account's credentials), not the run's own. */
  as?: Credentials;
}

export interface WireVariant {
  /**
   * Percent-escapes of values: "lower" writes encodeURIComponent's escapes in lower-case hex,
   * "every" escapes every character of every value (in lower case), "raw" leaves characters
   * outside ASCII unescaped (their UTF-8 bytes as they are, not the form x-signing states); the
   * signature covers the bytes as written either way.
   */
  escapes?: "lower" | "every" | "raw";
  /** Parameters sent in the form body besides `params` in the query (a name may be in both). */
  alsoInBody?: ParamList;
  /** Another request method than the operation's (a probe of the methods its path does not list). */
  method?: string;
  /** Request headers besides the ones the request has anyway (each replaces one of the same name). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Header lines written as they are after the others, a name the request has already included
   * (a header sent twice): only a request on a connection of its own (`connection: "own"`) is
   * written byte for byte.
   */
  headerLines?: readonly string[];
  /** No Host header (an HTTP/1.1 request without one); a connection of its own only, as above. */
  omitHost?: boolean;
}

export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** WireVariant's headerLines and omitHost, for a request written byte for byte. */
  headerLines?: readonly string[];
  omitHost?: boolean;
}

export interface BuildContext {
  baseUrl: string;
  signing: ContractSigning;
  credentials?: Credentials;
  /** Headers sent with every request (from the Endpoint record). */
  headers: Record<string, string>;
  /** Server time estimate in epoch ms. */
  now(): number;
}

/** A value in plain decimal notation (never exponent form), as the spec requires for numbers. */
export function plainNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return Math.abs(value) < 1e21 ? String(value) : BigInt(value).toString();
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(20).replace(/0+$/, "").replace(/\.$/, "");
}

/** The text of a parameter value: JSON for `content` parameters, plain decimals for numbers. */
export function encodeValue(param: ContractParameter | undefined, value: unknown): string {
  if (param?.encoding === "json") return JSON.stringify(value);
  if (typeof value === "number") return plainNumber(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** Parameter values (decoded) to wire text, in the spec's parameter order, unknown names last. */
export function encodeParams(op: ContractOperation, values: Readonly<Record<string, unknown>>): ParamList {
  const out: ParamList = [];
  const known = new Set<string>();
  for (const param of op.parameters) {
    known.add(param.name);
    const value = values[param.name];
    if (value !== undefined) out.push([param.name, encodeValue(param, value)]);
  }
  for (const [name, value] of Object.entries(values)) {
    if (!known.has(name) && value !== undefined) out.push([name, encodeValue(undefined, value)]);
  }
  return out;
}

function escapeValue(value: string, escapes: WireVariant["escapes"]): string {
  if (escapes === "every")
    return [...Buffer.from(value, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
  if (escapes === "raw")
    return [...value].map((c) => (c.charCodeAt(0) < 0x80 ? encodeURIComponent(c) : c)).join("");
  const standard = encodeURIComponent(value);
  return escapes === "lower" ? standard.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()) : standard;
}

function formEncode(params: ParamList, escapes?: WireVariant["escapes"]): string {
  return params.map(([k, v]) => `${encodeURIComponent(k)}=${escapeValue(v, escapes)}`).join("&");
}

/**
 * The plan's parameters by where the spec declares them: header parameters become request
 * headers and path parameters fill the path's template, so neither is in the query, the body or
 * the signed payload (x-signing signs the query and the body only); cookie parameters go in one
 * Cookie header. Names the operation does not declare stay parameters.
 */
export function byLocation(
  op: Pick<ContractOperation, "parameters" | "path">,
  params: ParamList,
): { params: ParamList; headers: Record<string, string>; path: string } {
  const located = { params: [] as ParamList, headers: {} as Record<string, string>, path: op.path };
  const cookies: string[] = [];
  for (const pair of params) {
    const [name, value] = pair;
    const place = op.parameters.find((p) => p.name === name)?.in ?? "query";
    if (place === "header") located.headers[name] = value;
    else if (place === "path") located.path = located.path.split(`{${name}}`).join(encodeURIComponent(value));
    else if (place === "cookie") cookies.push(`${name}=${encodeURIComponent(value)}`);
    else located.params.push(pair);
  }
  if (cookies.length > 0) located.headers.cookie = cookies.join("; ");
  return located;
}

const WRONG_KEY = "contract-tester-unknown-api-key-0000000000000000000000000000000000";

/** `text` with the case of each of its letters swapped. */
export function otherCase(text: string): string {
  return [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
}

/** Builds the bytes of one request, signing the final query string and body when asked. */
export function buildRequest(plan: RequestPlan, ctx: BuildContext): WireRequest {
  const { op } = plan;
  const auth = plan.auth ?? {};
  const signed = isSigned(op);
  const headers: Record<string, string> = { accept: "application/json", ...ctx.headers };
  const credentials = plan.as ?? ctx.credentials;
  const keyMode = auth.key ?? (needsApiKey(op) ? "valid" : "none");
  if (keyMode === "valid" && credentials) headers[ctx.signing.apiKeyHeader] = credentials.apiKey;
  else if (keyMode === "wrong") headers[ctx.signing.apiKeyHeader] = WRONG_KEY;
  else if (keyMode === "other-case" && credentials)
    headers[ctx.signing.apiKeyHeader] = otherCase(credentials.apiKey);
  else if (keyMode === "none") {
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() === ctx.signing.apiKeyHeader.toLowerCase()) delete headers[name];
    }
  }

  const located = byLocation(op, plan.params);
  Object.assign(headers, located.headers);
  const alsoInBody = op.acceptsFormBody ? plan.wire?.alsoInBody : undefined;
  const placement: Placement = alsoInBody
    ? "split"
    : op.acceptsFormBody
      ? (plan.placement ?? "query")
      : "query";
  const escapes = plan.wire?.escapes;
  const encode = (params: ParamList) => formEncode(params, escapes);
  let query: ParamList = [];
  let body: ParamList = [];
  if (placement === "query") query = [...located.params];
  else if (placement === "body") body = [...located.params];
  else if (alsoInBody) {
    query = [...located.params];
    body = [...alsoInBody];
  } else {
    const half = Math.ceil(located.params.length / 2);
    query = located.params.slice(0, half);
    body = located.params.slice(half);
  }
  const envelope = placement === "query" ? query : body;

  if (signed || auth.timestamp !== undefined || auth.signature !== undefined) {
    const timestampMode = auth.timestamp ?? (signed ? "now" : "none");
    if (auth.recvWindow !== undefined)
      envelope.push([ctx.signing.recvWindowParameter, String(auth.recvWindow)]);
    if (timestampMode !== "none") {
      const skew =
        timestampMode === "stale"
          ? -(ctx.signing.recvWindowDefault + 30_000)
          : timestampMode === "future"
            ? 30_000
            : 0;
      const ms = ctx.now() + skew + (auth.timestampShiftMs ?? 0);
      const ts =
        timestampMode === "seconds"
          ? Math.round(ctx.now() / 1000)
          : auth.timestampInMicroseconds
            ? Math.round(ms) * 1000 + SUB_MILLISECOND_US
            : Math.round(ms);
      envelope.push([ctx.signing.timestampParameter, String(ts)]);
    }
    const signatureMode = auth.signature ?? (signed ? "valid" : "none");
    if (signatureMode !== "none") {
      const secret = credentials?.apiSecret ?? "contract-tester-no-secret";
      let signature =
        signatureMode === "query-only"
          ? hmacHex(secret, encode(query), "")
          : signatureMode === "body-only"
            ? hmacHex(secret, "", encode(body))
            : hmacHex(secret, encode(query), encode(body));
      if (signatureMode === "wrong") signature = corruptSignature(signature);
      if (signatureMode === "upper-case") signature = signature.toUpperCase();
      envelope.push([ctx.signing.signatureParameter, signature]);
    }
  }

  const queryText = encode(query);
  const url = `${ctx.baseUrl.replace(/\/+$/, "")}${located.path}${queryText ? `?${queryText}` : ""}`;
  if (plan.wire?.headers) Object.assign(headers, plan.wire.headers);
  const request: WireRequest = {
    method: plan.wire?.method ?? methodOf(op),
    url,
    headers,
    ...(plan.wire?.headerLines ? { headerLines: plan.wire.headerLines } : {}),
    ...(plan.wire?.omitHost ? { omitHost: true } : {}),
  };
  if (body.length > 0) {
    request.body = encode(body);
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  return request;
}

const SENSITIVE_HEADER = /key|auth|token|secret|cookie|session|signature|password/i;

function maskValue(value: string): string {
  return value.length <= 8 ? "***" : `${value.slice(0, 4)}…(masked)`;
}

function maskParams(text: string, signatureParameter: string): string {
  if (!text) return text;
  return text
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return decodeURIComponent(name) === signatureParameter ? `${name}=***` : pair;
    })
    .join("&");
}

/**
 * A copy of a request fit for printing: API key and credential-like headers shortened, the
 * signature replaced by ***; header names from `alsoMask` (e.g. an Endpoint's headers) masked too.
 */
export function maskRequest(
  request: WireRequest,
  signing: ContractSigning,
  alsoMask: readonly string[] = [],
): WireRequest {
  const extra = new Set(alsoMask.map((n) => n.toLowerCase()));
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [
      name,
      name.toLowerCase() === signing.apiKeyHeader.toLowerCase() ||
      SENSITIVE_HEADER.test(name) ||
      extra.has(name.toLowerCase())
        ? maskValue(value)
        : value,
    ]),
  );
  const q = request.url.indexOf("?");
  const url =
    q < 0
      ? request.url
      : `${request.url.slice(0, q)}?${maskParams(request.url.slice(q + 1), signing.signatureParameter)}`;
  const masked: WireRequest = { method: request.method, url, headers };
  if (request.body !== undefined) masked.body = maskParams(request.body, signing.signatureParameter);
  return masked;
}

/**
 * Replaces every occurrence of a secret (API key, secret, a request's signature, an Endpoint's
 * header values) in text the report shows, such as response headers and bodies that echo them.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(maskValue(secret));
  }
  return out;
}

/** The secrets one request carries: the signature parameter's value(s), credential-like headers. */
export function secretsOf(
  request: WireRequest,
  signing: ContractSigning,
  alsoMask: readonly string[] = [],
): string[] {
  const secrets: string[] = [];
  const extra = new Set(alsoMask.map((n) => n.toLowerCase()));
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (lower === signing.apiKeyHeader.toLowerCase() || SENSITIVE_HEADER.test(name) || extra.has(lower))
      secrets.push(value);
  }
  const q = request.url.indexOf("?");
  for (const part of [q < 0 ? "" : request.url.slice(q + 1), request.body ?? ""]) {
    for (const pair of part.split("&")) {
      const eq = pair.indexOf("=");
      if (eq > 0 && safeDecode(pair.slice(0, eq)) === signing.signatureParameter)
        secrets.push(pair.slice(eq + 1));
    }
  }
  return secrets;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
