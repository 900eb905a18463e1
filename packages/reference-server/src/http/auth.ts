/**
 * Authentication per `x-auth-class`: nothing for `none` and `market_data` (whose API key is
 * accepted but not required, and, as on the live API, does not change the answer); a known key
 * plus an HMAC-SHA256 signature over the received bytes and a timestamp inside the receive window
 * for `trade` and `user_data` (`x-signing`). As on the live API, `timestamp` may be sent in
 * milliseconds or microseconds, and `recvWindow` is read on every signed operation with up to
 * three decimals (microsecond precision).
 */
import { createHmac } from "node:crypto";
import { type EpochTime, epochMicroseconds } from "@marketapi/spec/model";
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
import { HmacKey } from "./hmac.js";
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
/** recvWindow is a DECIMAL on the live API (the -1100 answers quote this pattern). */
const DECIMAL_PATTERN = "^([0-9]{1,20})(\\.[0-9]{1,20})?$";
const DECIMAL = new RegExp(DECIMAL_PATTERN);
/** Up to three decimals: microseconds. */
const RECV_WINDOW_DECIMALS = 3;

/** API keys → credentials. Keys are case-sensitive. */
export class KeyRing {
  private readonly byKey = new Map<string, Credential>();
  /** Each secret made ready to sign with, once (hmac.ts). */
  private readonly hmacKeys = new Map<string, HmacKey>();

  add(credential: Credential): void {
    if (this.byKey.has(credential.apiKey))
      throw new Error(`API key "${credential.apiKey}" is already in use`);
    this.byKey.set(credential.apiKey, credential);
    this.hmacKeys.set(credential.apiKey, new HmacKey(credential.apiSecret));
  }

  /** Forgets a key (an account the admin surface added, taken back by a restore). */
  remove(apiKey: string): void {
    this.byKey.delete(apiKey);
    this.hmacKeys.delete(apiKey);
  }

  get(apiKey: string): Credential | undefined {
    return this.byKey.get(apiKey);
  }

  /** The HMAC key of a known API key's secret. */
  hmacKey(apiKey: string): HmacKey | undefined {
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
  /** The units a timestamp may be sent in (`x-epoch-time`); milliseconds only without it. */
  readonly epochTime?: EpochTime | undefined;
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

function checkSignedRequest(signing: SigningRule, secret: string | HmacKey, input: AuthInput): void {
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
  // Compared as instants in microseconds (x-epoch-time: same-instant): a timestamp may be sent in
  // either unit, recvWindow has decimals.
  const timestampUs = input.epochTime ? epochMicroseconds(input.epochTime, timestamp) : timestamp * 1000;
  const nowUs = input.now * 1000;
  // A spec that states no lead (x-signing's acceptance words) allows none.
  const leadMs = signing.aheadAllowedMs ?? 0;
  if (timestampUs >= nowUs + leadMs * 1000) throw timestampAhead(leadMs);
  if (nowUs - timestampUs > Math.round(recvWindowMs * 1000)) throw timestampOutsideWindow();
}

/** The receive window in milliseconds (up to three decimals); the default when not sent. */
function receiveWindow(signing: SigningRule, text: string | undefined, decimals: boolean): number {
  const name = signing.recvWindowParameter;
  if (text === undefined) return signing.recvWindowDefault;
  // The spec (and the source document) types recvWindow as an integer; decimals are opt-in.
  // What INTEGER accepts DECIMAL accepts too: an integer is tested once.
  const integer = INTEGER.test(text);
  if (!decimals && !integer) throw illegalChars(name, INTEGER_PATTERN);
  if (!integer && !DECIMAL.test(text)) throw illegalChars(name, DECIMAL_PATTERN);
  // DECIMAL allows one dot at most, with digits after it.
  const dot = integer ? -1 : text.indexOf(".");
  const places = dot < 0 ? 0 : text.length - dot - 1;
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
 * secret as text (UTF-8) or made ready (HmacKey).
 */
export function signatureMatches(secret: string | HmacKey, payload: string, signature: string): boolean {
  if (signature.length !== 64) return false;
  // The payload holds the bytes as received (query and form body are read as latin1).
  const expected = (typeof secret === "string" ? new HmacKey(secret) : secret).hex(payload);
  return sameHex(expected, signature);
}

/**
 * Whether `given` spells the lower-case hex digits of `expected` in either case. Every character is
 * compared, whatever the first difference (the time does not tell how much of a guess was right);
 * an upper-case letter is lowered first, and anything that is not a hex digit equals none.
 */
function sameHex(expected: string, given: string): boolean {
  let difference = 0;
  for (let i = 0; i < expected.length; i += 1) {
    let code = given.charCodeAt(i);
    if (code >= 0x41 && code <= 0x5a) code |= 0x20;
    difference |= code ^ expected.charCodeAt(i);
  }
  return difference === 0;
}

/** The lower-case hex signature of a payload (what a client sends). */
export function hmacSignature(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload, "latin1").digest("hex");
}
