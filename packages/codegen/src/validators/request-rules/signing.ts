// x-signing in the validators generator: the envelope a signed operation's parameters accept.
import type { JsonSchema, Operation } from "../../spec-input/spec-model.js";
import type { SigningEnvelope } from "../validators-runtime.js";

export interface Signing {
  names: SigningEnvelope;
  signatureSchema: JsonSchema;
}

/**
 * The signing envelope of an operation whose security requirements use a scheme with
 * `x-signing`: its parameter names and the shape of the signature
 * (64 hex digits for HMAC-SHA256, any non-empty text otherwise).
 */
export function signingEnvelope(operation: Operation): Signing | undefined {
  const signing = operation.signing;
  if (!signing) return undefined;
  return {
    names: { timestamp: signing.timestampParameter, signature: signing.signatureParameter },
    signatureSchema:
      signing.algorithm === "HMAC-SHA256"
        ? { type: "string", pattern: "^[0-9a-fA-F]{64}$" }
        : { type: "string", minLength: 1 },
  };
}
