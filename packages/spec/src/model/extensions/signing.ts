// x-signing: the signing rule on a security scheme (docs/extensions.md).
import { isObject, type JsonObject } from "../json.js";
import { pointerOf } from "../json-pointer.js";
import { describeValue, SpecModelError } from "../spec-model-error.js";
import type { ExtensionDescriptor } from "./extension.js";

/** One case every signer and verifier must reproduce: HMAC of `query` + `body` keyed by `secret`. */
export interface SigningTestVector {
  secret: string;
  query: string;
  body: string;
  signature: string;
}

/** The signing rule of a scheme with `x-signing`, with the names of its envelope and its limits. */
export interface SigningRule {
  /** Name of the security scheme that carries `x-signing`. */
  scheme: string;
  /** JSON Pointer of the `x-signing` object. */
  pointer: string;
  algorithm: string;
  /** Header of the API key that signed requests carry with the signature; undefined when none is declared. */
  apiKeyHeader: string | undefined;
  /** The signature's parameter (`signature`). */
  signatureParameter: string;
  /** The timestamp's parameter (`timestamp`; its units are x-epoch-time's). */
  timestampParameter: string;
  /** The receive window's parameter (`recvWindow`), its default and its largest accepted value (ms). */
  recvWindowParameter: string;
  recvWindowDefault: number;
  recvWindowMaximum: number;
  /**
   * How far ahead of the server's clock a timestamp may be (ms): the N of `timestamp < serverTime
   * + N` in the acceptance words; undefined when they state no lead that way.
   */
  aheadAllowedMs: number | undefined;
  /** API error codes of a bad signature and of a timestamp outside the window, where stated. */
  invalidSignatureCode: number | undefined;
  invalidTimestampCode: number | undefined;
  testVectors: SigningTestVector[];
  /** The rule in words, as the spec states it (for people; each absent when not stated). */
  words: SigningWords;
}

/** The parts of `x-signing` that state the rule in prose. */
export interface SigningWords {
  key?: string;
  payload?: string;
  encoding?: string;
  output?: string;
  placement?: string;
  acceptance?: string;
  timestampUnit?: string;
  timestampRequired?: boolean;
  recvWindowUnit?: string;
  /** Which operations accept the receive window. */
  recvWindowAcceptedBy?: string;
}

const WORDS = ["key", "payload", "encoding", "output", "placement", "acceptance"] as const;

function wordsOf(
  value: JsonObject,
  timestamp: JsonObject,
  recvWindow: JsonObject,
  where: string,
): SigningWords {
  const words: SigningWords = {};
  const textAt = (raw: unknown, at: string): string | undefined => {
    if (raw === undefined) return undefined;
    if (typeof raw !== "string") throw new SpecModelError(at, "text", describeValue(raw));
    return raw;
  };
  for (const key of WORDS) {
    const read = textAt(value[key], `${where}/${key}`);
    if (read !== undefined) words[key] = read;
  }
  const timestampUnit = textAt(timestamp.unit, `${where}/timestamp/unit`);
  if (timestampUnit !== undefined) words.timestampUnit = timestampUnit;
  if (timestamp.required !== undefined) {
    if (typeof timestamp.required !== "boolean")
      throw new SpecModelError(
        `${where}/timestamp/required`,
        "true or false",
        describeValue(timestamp.required),
      );
    words.timestampRequired = timestamp.required;
  }
  const recvWindowUnit = textAt(recvWindow.unit, `${where}/recvWindow/unit`);
  if (recvWindowUnit !== undefined) words.recvWindowUnit = recvWindowUnit;
  const acceptedBy = textAt(recvWindow.acceptedBy, `${where}/recvWindow/acceptedBy`);
  if (acceptedBy !== undefined) words.recvWindowAcceptedBy = acceptedBy;
  return words;
}

const DEFAULT_RECV_WINDOW = { parameter: "recvWindow", default: 5000, maximum: 60000 };

/** Every security scheme with `x-signing`, by scheme name. */
export function readSigningRules(document: JsonObject): Map<string, SigningRule> {
  const schemes = isObject(document.components?.securitySchemes) ? document.components.securitySchemes : {};
  const rules = new Map<string, SigningRule>();
  for (const [name, scheme] of Object.entries(schemes)) {
    if (!isObject(scheme) || scheme["x-signing"] === undefined) continue;
    rules.set(name, readSigningRule(document, name, scheme["x-signing"]));
  }
  return rules;
}

function readSigningRule(document: JsonObject, scheme: string, value: unknown): SigningRule {
  const pointer = pointerOf("components", "securitySchemes", scheme, "x-signing");
  if (!isObject(value))
    throw new SpecModelError(pointer, "an object stating the signing rule", describeValue(value));
  const timestamp = isObject(value.timestamp) ? value.timestamp : {};
  const recvWindow = isObject(value.recvWindow) ? value.recvWindow : DEFAULT_RECV_WINDOW;
  const errors = isObject(value.errors) ? value.errors : {};
  return {
    scheme,
    pointer,
    algorithm: typeof value.algorithm === "string" ? value.algorithm : "",
    apiKeyHeader: apiKeyHeaderBeside(document, scheme),
    signatureParameter: nameAt(value.parameter, `${pointer}/parameter`),
    timestampParameter: nameAt(timestamp.parameter, `${pointer}/timestamp/parameter`),
    recvWindowParameter: nameAt(recvWindow.parameter ?? "recvWindow", `${pointer}/recvWindow/parameter`),
    recvWindowDefault: millisecondsAt(recvWindow.default ?? 5000, `${pointer}/recvWindow/default`),
    recvWindowMaximum: millisecondsAt(recvWindow.maximum ?? 60000, `${pointer}/recvWindow/maximum`),
    aheadAllowedMs: leadStatedBy(value.acceptance),
    invalidSignatureCode: typeof errors.invalidSignature === "number" ? errors.invalidSignature : undefined,
    invalidTimestampCode: typeof errors.invalidTimestamp === "number" ? errors.invalidTimestamp : undefined,
    testVectors: testVectorsAt(value.testVectors, `${pointer}/testVectors`),
    words: wordsOf(value, timestamp, recvWindow, pointer),
  };
}

/** The N of `timestamp < serverTime + N` in the acceptance words (read whatever its spacing). */
export function leadStatedBy(acceptance: unknown): number | undefined {
  if (typeof acceptance !== "string") return undefined;
  const match = /timestamp\s*<\s*serverTime\s*\+\s*(\d+)/.exec(acceptance);
  return match ? Number(match[1]) : undefined;
}

/**
 * The header of the API key scheme that security requirements name together with the signing
 * scheme; failing that (or with no signing scheme), the document's only header API key scheme.
 */
export function apiKeyHeaderBeside(
  document: JsonObject,
  signingScheme: string | undefined,
): string | undefined {
  const schemes: JsonObject = document.components?.securitySchemes ?? {};
  const headerOf = (name: string): string | undefined => {
    const scheme = schemes[name];
    return isObject(scheme) &&
      scheme.type === "apiKey" &&
      scheme.in === "header" &&
      typeof scheme.name === "string"
      ? scheme.name
      : undefined;
  };
  for (const requirement of allRequirements(document)) {
    if (signingScheme === undefined || !Object.hasOwn(requirement, signingScheme)) continue;
    const header = Object.keys(requirement)
      .map(headerOf)
      .find((h) => h !== undefined);
    if (header !== undefined) return header;
  }
  const headers = Object.keys(schemes)
    .map(headerOf)
    .filter((h) => h !== undefined);
  return headers.length === 1 ? headers[0] : undefined;
}

function allRequirements(document: JsonObject): JsonObject[] {
  const lists: unknown[] = [document.security];
  for (const item of Object.values(isObject(document.paths) ? document.paths : {})) {
    if (isObject(item))
      for (const operation of Object.values(item)) if (isObject(operation)) lists.push(operation.security);
  }
  return lists.flatMap((list) => (Array.isArray(list) ? list.filter(isObject) : []));
}

function nameAt(value: unknown, where: string): string {
  if (typeof value !== "string" || value === "")
    throw new SpecModelError(where, "a parameter name", describeValue(value));
  return value;
}

function millisecondsAt(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new SpecModelError(where, "a whole number of milliseconds", describeValue(value));
  }
  return value;
}

function testVectorsAt(value: unknown, where: string): SigningTestVector[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new SpecModelError(where, "a list of { secret, query, body, signature }", describeValue(value));
  return value.map((raw, i) => {
    const ok =
      isObject(raw) &&
      typeof raw.secret === "string" &&
      typeof raw.signature === "string" &&
      ["query", "body"].every((key) => raw[key] === undefined || typeof raw[key] === "string");
    if (!ok)
      throw new SpecModelError(
        `${where}/${i}`,
        "a test vector { secret, query, body, signature } of strings",
        describeValue(raw),
      );
    return { secret: raw.secret, query: raw.query ?? "", body: raw.body ?? "", signature: raw.signature };
  });
}

export const signingExtension = {
  key: "x-signing",
  name: "signing",
  on: "security-scheme",
  field: "SpecModel.signingRules, SpecModel.signing, Operation.signing",
  constrains: ["requests", "signing", "behaviour"],
  summary: "the signing rule: algorithm, payload, envelope names, receive window, error codes, test vectors",
  read: readSigningRules,
} as const satisfies ExtensionDescriptor;
