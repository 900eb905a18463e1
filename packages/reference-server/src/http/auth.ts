/**
 * Authentication per `x-auth-class`: nothing for `none`; a known API key for `market_data`; a
 * known key plus an HMAC-SHA256 signature over the received bytes and a timestamp inside the
 * receive window for `trade` and `user_data` (`x-signing`).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { illegalChars, mandatoryMissing } from "../engine/errors.js";
import {
  apiKeyFormatInvalid,
  apiKeyRejected,
  invalidSignature,
  recvWindowTooLarge,
  timestampAhead,
  timestampOutsideWindow,
} from "./apiError.js";
import type { OperationSpec, SigningRule } from "./operations.js";
import type { RequestParams } from "./params.js";

/** One API key: its secret and the account it acts for. */
export interface Credential {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly accountId: string;
}

export const API_KEY_PATTERN = "^[A-Za-z0-9_-]{1,128}$";
const API_KEY = new RegExp(API_KEY_PATTERN);
const INTEGER_PATTERN = "^[0-9]{1,20}$";
const INTEGER = new RegExp(INTEGER_PATTERN);
const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;
/** How far ahead of the server clock a timestamp may be (x-signing acceptance). */
const MAX_AHEAD_MS = 1000;

/** API keys → credentials. Keys are case-sensitive. */
export class KeyRing {
  private readonly byKey = new Map<string, Credential>();

  add(credential: Credential): void {
    if (this.byKey.has(credential.apiKey))
      throw new Error(`API key "${credential.apiKey}" is already in use`);
    this.byKey.set(credential.apiKey, credential);
  }

  get(apiKey: string): Credential | undefined {
    return this.byKey.get(apiKey);
  }
}

export interface AuthInput {
  readonly operation: OperationSpec;
  readonly apiKeyHeader: string | undefined;
  readonly params: RequestParams;
  readonly now: number;
}

/** The account id the request acts for (undefined for `none`); throws the API's error otherwise. */
export function authenticate(keys: KeyRing, signing: SigningRule, input: AuthInput): string | undefined {
  const { operation } = input;
  if (operation.authClass === "none") return undefined;
  const credential = knownKey(keys, input.apiKeyHeader);
  if (operation.signed) checkSignedRequest(signing, credential, input);
  return credential.accountId;
}

function knownKey(keys: KeyRing, header: string | undefined): Credential {
  if (header === undefined || !API_KEY.test(header)) throw apiKeyFormatInvalid();
  const credential = keys.get(header);
  if (!credential) throw apiKeyRejected();
  return credential;
}

function checkSignedRequest(signing: SigningRule, credential: Credential, input: AuthInput): void {
  const { values, signedPayload } = input.params;
  const signature = values.get(signing.signatureParam);
  if (signature === undefined) throw mandatoryMissing(signing.signatureParam);
  const timestamp = integerParam(values.get(signing.timestampParam), signing.timestampParam);
  if (timestamp === undefined) throw mandatoryMissing(signing.timestampParam);
  const recvWindow = receiveWindow(signing, values.get(signing.recvWindowParam));
  if (!signatureMatches(credential.apiSecret, signedPayload, signature)) throw invalidSignature();
  if (timestamp >= input.now + MAX_AHEAD_MS) throw timestampAhead();
  if (input.now - timestamp > recvWindow) throw timestampOutsideWindow();
}

function receiveWindow(signing: SigningRule, text: string | undefined): number {
  const value = integerParam(text, signing.recvWindowParam);
  if (value === undefined) return signing.defaultRecvWindow;
  if (value < 1) throw illegalChars(signing.recvWindowParam, `1..${signing.maxRecvWindow}`);
  if (value > signing.maxRecvWindow) throw recvWindowTooLarge(signing.maxRecvWindow);
  return value;
}

function integerParam(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  if (!INTEGER.test(text)) throw illegalChars(name, INTEGER_PATTERN);
  return Number(text);
}

/** HMAC-SHA256 over the payload's bytes; hex compared case-insensitively in constant time. */
export function signatureMatches(secret: string, payload: string, signature: string): boolean {
  if (!HEX_SIGNATURE.test(signature)) return false;
  // The payload holds the bytes as received (query and form body are read as latin1).
  const expected = createHmac("sha256", secret).update(payload, "latin1").digest();
  return timingSafeEqual(expected, Buffer.from(signature, "hex"));
}

/** The lower-case hex signature of a payload (what a client sends). */
export function hmacSignature(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload, "latin1").digest("hex");
}
