import { createHmac } from "node:crypto";
import type { ContractSigning } from "../core/operations.js";

/**
 * HMAC-SHA256 of the signed payload as x-signing states it: the query string as sent (without
 * "?") immediately followed by the form body as sent, keyed with the secret's UTF-8 bytes,
 * written as lower-case hex.
 */
export function hmacHex(secret: string, query: string, body = ""): string {
  return createHmac("sha256", Buffer.from(secret, "utf8"))
    .update(query + body, "utf8")
    .digest("hex");
}

/** A signature that is valid hex of the right length but certainly wrong: the last digit changed. */
export function corruptSignature(signature: string): string {
  const last = signature.at(-1) ?? "0";
  const replacement = last === "0" ? "1" : "0";
  return signature.slice(0, -1) + replacement;
}

/**
 * Checks this signer against the spec's own test vectors; returns the vectors it fails to
 * reproduce (an empty list when all match).
 */
export function failingTestVectors(signing: ContractSigning): string[] {
  return signing.testVectors
    .filter((v) => hmacHex(v.secret, v.query, v.body) !== v.signature.toLowerCase())
    .map((v) => `query=${JSON.stringify(v.query)} body=${JSON.stringify(v.body)}`);
}
