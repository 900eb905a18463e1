import { describe, expect, it } from "vitest";
import {
  compileEndpointValidator,
  faultPointers,
  LINEAR_MIME_TYPE_PATTERN,
  loadEndpointSchema,
  type SchemaNode,
  SEED_MIME_TYPE_PATTERN,
  SEED_MIME_TYPE_PATTERN_ANCHORED,
} from "./support/endpoint-schema-support.js";

// ajv compiles `pattern` with the "u" flag; use the same flag here.
const linear = new RegExp(LINEAR_MIME_TYPE_PATTERN, "u");
const seedAnchored = new RegExp(SEED_MIME_TYPE_PATTERN_ANCHORED, "u");
const seedUnanchored = new RegExp(SEED_MIME_TYPE_PATTERN, "u");

/** Every string of length 0..maxLength over the alphabet, shortest first. */
function* allStrings(alphabet: readonly string[], maxLength: number): Generator<string> {
  let layer = [""];
  for (let length = 0; length <= maxLength; length++) {
    yield* layer;
    if (length === maxLength) break;
    const next: string[] = [];
    for (const prefix of layer) for (const ch of alphabet) next.push(prefix + ch);
    layer = next;
  }
}

function compareOn(alphabet: readonly string[], maxLength: number) {
  let total = 0;
  let accepted = 0;
  const differences: string[] = [];
  for (const s of allStrings(alphabet, maxLength)) {
    total++;
    const want = seedAnchored.test(s);
    if (want) accepted++;
    if (linear.test(s) !== want && differences.length < 10) differences.push(JSON.stringify(s));
  }
  return { total, accepted, differences };
}

describe("the schema's payloadMimeType pattern", () => {
  it("is exactly the linear form", () => {
    const properties = loadEndpointSchema().properties as Record<string, SchemaNode>;
    const items = properties.payloadMimeType!.items as SchemaNode;
    expect(items.pattern).toBe("^[^\\s]+(?:\\s[^\\s]+)*$");
    expect(items.pattern).toBe(LINEAR_MIME_TYPE_PATTERN);
  });
});

describe("linear pattern ≡ the source pattern anchored", () => {
  it('agrees on all 88,573 strings of length 0..10 over {"a", " ", "\\t"}', () => {
    const { total, accepted, differences } = compareOn(["a", " ", "\t"], 10);
    expect(total).toBe(88_573); // (3^11 - 1) / 2
    expect(accepted).toBe(682);
    expect(differences).toEqual([]);
  });

  it("agrees with Unicode whitespace (NBSP, line separator) in the alphabet too", () => {
    const { total, differences } = compareOn(["a", "\u00a0", "\u2028", " "], 7);
    expect(total).toBe(21_845); // (4^8 - 1) / 3
    expect(differences).toEqual([]);
  });

  it.each([
    { given: " a", wantUnanchored: true },
    { given: "a ", wantUnanchored: true },
    { given: "a  b", wantUnanchored: true },
    { given: "\ta\t", wantUnanchored: true },
    { given: "", wantUnanchored: false },
    { given: "   ", wantUnanchored: false },
  ])(
    "unanchored, the source pattern accepts $given: $wantUnanchored; anchored forms reject it",
    ({ given, wantUnanchored }) => {
      expect(seedUnanchored.test(given)).toBe(wantUnanchored);
      expect(seedAnchored.test(given)).toBe(false);
      expect(linear.test(given)).toBe(false);
    },
  );
});

describe("adversarial payloadMimeType items", () => {
  const validate = compileEndpointValidator();
  const withMime = (item: string) => ({
    resourceType: "Endpoint",
    connectionType: { code: "hl7-fhir-rest" },
    payloadType: [{ text: "any" }],
    payloadMimeType: [item],
  });

  // The linear pattern takes milliseconds on these; the anchored source pattern backtracks and
  // would not finish. No clock is read: a pattern that backtracks shows as a test that never ends.
  it.each([
    { given: 'a×100,000 + "  "', item: `${"a".repeat(100_000)}  `, want: false },
    { given: 'a×99,999 + " "', item: `${"a".repeat(99_999)} `, want: false },
    { given: '" " + a×99,999', item: ` ${"a".repeat(99_999)}`, want: false },
    { given: 'a×99,997 + "\\t\\t" + a', item: `${"a".repeat(99_997)}\t\ta`, want: false },
    { given: "valid 100,000 characters", item: "a b".repeat(33_333).concat("a"), want: true },
    { given: 'ReDoS guard: a×28 + "  "', item: `${"a".repeat(28)}  `, want: false },
  ])("$given → valid: $want", ({ item, want }) => {
    const ok = validate(withMime(item));
    expect(ok).toBe(want);
    if (!want) expect(faultPointers(validate.errors)).toEqual(["/payloadMimeType/0"]);
  });
});
