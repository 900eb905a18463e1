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

  it("a signature that is not 64 hex digits never verifies, wherever the fault is", () => {
    const { secret, query, body, signature } = signing.testVectors[0] as (typeof signing.testVectors)[0];
    const payload = query + body;
    const mixedCase = [...signature].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join("");
    // A digit with the case bit cleared is a control character (0x30 -> 0x10): no digit in any case.
    const digitAt = signature.search(/[0-9]/);
    const controlForDigit = String.fromCharCode(signature.charCodeAt(digitAt) & ~0x20);
    expect(signatureMatches(secret, payload, mixedCase)).toBe(true);
    const faulty: [name: string, text: string][] = [
      ["a non-hex first digit", `g${signature.slice(1)}`],
      ["a non-hex last digit", `${signature.slice(0, -1)}g`],
      ["a space inside", `${signature.slice(0, 31)} ${signature.slice(32)}`],
      ["one digit short", signature.slice(1)],
      ["one digit more", `${signature}0`],
      ["a non-ASCII letter", `${signature.slice(0, -1)}\u00e9`],
      ["a trailing space in place of a digit", `${signature.slice(0, -1)} `],
      [
        "a control character in place of a digit",
        `${signature.slice(0, digitAt)}${controlForDigit}${signature.slice(digitAt + 1)}`,
      ],
    ];
    for (const [name, text] of faulty) {
      expect({ name, verifies: signatureMatches(secret, payload, text) }).toEqual({ name, verifies: false });
    }
  });
});
