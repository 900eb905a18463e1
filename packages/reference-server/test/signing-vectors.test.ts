// The server's verifier on the spec's own x-signing.testVectors: the signed payload it rebuilds
// from the raw query and body (readParams, with the signature parameter the spec names) and the
// signature check (signatureMatches) accept every vector, and refuse it once one byte changes.
import { describe, expect, it } from "vitest";
import { describeApi } from "../src/http/api.js";
import { signatureMatches } from "../src/http/auth.js";
import { readParams } from "../src/http/params.js";

const { signing } = describeApi();

describe("x-signing.testVectors", () => {
  it("the spec states some", () => {
    expect(signing.testVectors.length).toBeGreaterThanOrEqual(2);
  });

  it.each(signing.testVectors.map((vector, i) => ({ i, ...vector })))(
    "vector $i: the payload is rebuilt from the raw parts and its signature verifies",
    ({ secret, query, body, signature }) => {
      const pair = `${signing.signatureParameter}=${signature}`;
      // The signature travels last in the part that carries the parameters.
      const sent = body === "" ? { query: `${query}&${pair}`, body } : { query, body: `${body}&${pair}` };
      const params = readParams(sent.query, sent.body, 64, signing.signatureParameter);
      expect(params.signedPayload).toBe(query + body);
      expect(params.values.get(signing.signatureParameter)).toBe(signature);
      expect(signatureMatches(secret, params.signedPayload, signature)).toBe(true);
      expect(signatureMatches(secret, params.signedPayload, signature.toUpperCase())).toBe(true);
      expect(signatureMatches(secret, `${params.signedPayload}0`, signature)).toBe(false);
      expect(signatureMatches(`${secret}x`, params.signedPayload, signature)).toBe(false);
    },
  );
});
