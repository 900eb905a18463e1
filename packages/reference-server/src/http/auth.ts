/**
 * Authentication per `x-auth-class`: nothing for `none` and `market_data` (whose API key is
 * accepted but not required, and, as on the live API, does not change the answer); a known key
 * plus an HMAC-SHA256 signature over the received bytes and a timestamp inside the receive window
 * for `trade` and `user_data` (`x-signing`). As on the live API, `timestamp` may be sent in
 * milliseconds or microseconds, and `recvWindow` is read on every signed operation with up to
 * three decimals (microsecond precision).
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import {
  apiKeyFormatInvalid,
  apiKeyRejected,
  badPrecision,
  illegalChars,
  illegalParamValue,
  invalidSignature,
  mandatoryMissing,
  recvWindowTooLarge,
  timestampAhead,
  timestampOutsideWindow,
} from "../errors.js";
import type { ServerOperation, SigningRule } from "./api.js";
import type { RequestParams } from "./params.js";
import { MICROSECONDS_FROM } from "./time-unit.js";

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
/** recvWindow is a DECIMAL on the live API (the -1100 answers quote this pattern). */
const DECIMAL_PATTERN = "^([0-9]{1,20})(\\.[0-9]{1,20})?$";
const DECIMAL = new RegExp(DECIMAL_PATTERN);
/** Up to three decimals: microseconds. */
const RECV_WINDOW_DECIMALS = 3;
/** How far ahead of the server clock a timestamp may be (x-signing acceptance). */
const MAX_AHEAD_MS = 1000;

/** API keys → credentials. Keys are case-sensitive. */
export class KeyRing {
  private readonly byKey = new Map<string, Credential>();
  /** Each secret as a key object, made once (HMAC with a string secret copies it per request). */
  private readonly hmacKeys = new Map<string, KeyObject>();

  add(credential: Credential): void {
    if (this.byKey.has(credential.apiKey))
      throw new Error(`API key "${credential.apiKey}" is already in use`);
    this.byKey.set(credential.apiKey, credential);
    this.hmacKeys.set(credential.apiKey, createSecretKey(credential.apiSecret, "utf8"));
  }

  get(apiKey: string): Credential | undefined {
    return this.byKey.get(apiKey);
  }

  /** The HMAC key of a known API key's secret. */
  hmacKey(apiKey: string): KeyObject | undefined {
    return this.hmacKeys.get(apiKey);
  }
}

export interface AuthInput {
  readonly operation: ServerOperation;
  readonly apiKeyHeader: string | undefined;
  readonly params: RequestParams;
  readonly now: number;
  /** recvWindow may carry up to three decimals (`--recv-window-decimals`); otherwise an integer. */
  readonly recvWindowDecimals?: boolean;
}

/** The account id the request acts for (undefined for `none`); throws the API's error otherwise. */
export function authenticate(keys: KeyRing, signing: SigningRule, input: AuthInput): string | undefined {
  const { operation } = input;
  if (!operation.signed) return undefined;
  const credential = knownKey(keys, input.apiKeyHeader);
  checkSignedRequest(signing, keys.hmacKey(credential.apiKey) ?? credential.apiSecret, input);
  return credential.accountId;
}

function knownKey(keys: KeyRing, header: string | undefined): Credential {
  if (header === undefined || !API_KEY.test(header)) throw apiKeyFormatInvalid();
  const credential = keys.get(header);
  if (!credential) throw apiKeyRejected();
  return credential;
}

function checkSignedRequest(signing: SigningRule, secret: string | KeyObject, input: AuthInput): void {
  const { values, signedPayload } = input.params;
  const signature = values.get(signing.signatureParameter);
  if (signature === undefined) throw mandatoryMissing(signing.signatureParameter);
  const timestamp = integerParam(values.get(signing.timestampParameter), signing.timestampParameter);
  if (timestamp === undefined) throw mandatoryMissing(signing.timestampParameter);
  const recvWindowMs = receiveWindow(
    signing,
    values.get(signing.recvWindowParameter),
    input.recvWindowDecimals === true,
  );
  if (!signatureMatches(secret, signedPayload, signature)) throw invalidSignature();
  // Compared in microseconds: a timestamp may be sent in either unit, recvWindow has decimals.
  const timestampUs = timestamp >= MICROSECONDS_FROM ? timestamp : timestamp * 1000;
  const nowUs = input.now * 1000;
  if (timestampUs >= nowUs + MAX_AHEAD_MS * 1000) throw timestampAhead();
  if (nowUs - timestampUs > Math.round(recvWindowMs * 1000)) throw timestampOutsideWindow();
}

/** The receive window in milliseconds (up to three decimals); the default when not sent. */
function receiveWindow(signing: SigningRule, text: string | undefined, decimals: boolean): number {
  const name = signing.recvWindowParameter;
  if (text === undefined) return signing.recvWindowDefault;
  // The spec (and the source document) types recvWindow as an integer; decimals are opt-in.
  if (!decimals && !INTEGER.test(text)) throw illegalChars(name, INTEGER_PATTERN);
  if (!DECIMAL.test(text)) throw illegalChars(name, DECIMAL_PATTERN);
  const places = text.split(".")[1]?.length ?? 0;
  if (places > RECV_WINDOW_DECIMALS) throw badPrecision(name);
  const value = Number(text);
  if (value > signing.recvWindowMaximum) throw recvWindowTooLarge(name, signing.recvWindowMaximum);
  if (value <= 0) throw illegalParamValue(name, "must be greater than 0");
  return value;
}

function integerParam(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  if (!INTEGER.test(text)) throw illegalChars(name, INTEGER_PATTERN);
  return Number(text);
}

/**
 * HMAC-SHA256 over the payload's bytes; hex compared case-insensitively in constant time. The
 * secret as text (UTF-8) or as its key object.
 */
export function signatureMatches(secret: string | KeyObject, payload: string, signature: string): boolean {
  // 64 characters that decode to 32 bytes are 64 hex digits (hex decoding stops at the first
  // character that is not one): the test of /^[0-9a-fA-F]{64}$/, without a regex per request.
  if (signature.length !== 64) return false;
  const given = Buffer.from(signature, "hex");
  if (given.length !== 32) return false;
  // The payload holds the bytes as received (query and form body are read as latin1).
  const expected = createHmac("sha256", secret).update(payload, "latin1").digest();
  return timingSafeEqual(expected, given);
}

/** The lower-case hex signature of a payload (what a client sends). */
export function hmacSignature(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload, "latin1").digest("hex");
}
