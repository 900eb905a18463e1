// The smoke test of marketapi-validate as a consumer installs it (packed, alone): a valid Endpoint
// record passes, a broken one is rejected naming /address, and a query string is checked against
// an operation. scripts/release-check.mjs runs it in the consumer project.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** @typedef {import("../../../../scripts/release-check.mjs").SmokeContext} SmokeContext */

const validEndpoint = {
  resourceType: "Endpoint",
  status: "active",
  connectionType: {
    system: "http://terminology.hl7.org/CodeSystem/endpoint-connection-type",
    code: "hl7-fhir-rest",
  },
  payloadType: [{ text: "any" }],
  address: "https://example.org/fhir",
};

/** @type {Record<string, (ctx: SmokeContext) => Promise<string[]>>} */
export const smoke = {
  async "marketapi-validate"(ctx) {
    const failures = [];
    writeFileSync(join(ctx.dir, "endpoint.json"), JSON.stringify(validEndpoint));
    writeFileSync(
      join(ctx.dir, "broken.json"),
      JSON.stringify({ ...validEndpoint, address: "https://example.org/a b" }),
    );
    const valid = await ctx.runBin("marketapi-validate", ["endpoint", "endpoint.json"]);
    if (valid.code !== 0)
      failures.push(ctx.transcript("marketapi-validate endpoint (a valid record)", valid));
    const invalid = await ctx.runBin("marketapi-validate", ["endpoint", "broken.json"]);
    if (invalid.code !== 1 || !`${invalid.stdout}${invalid.stderr}`.includes("/address")) {
      const want = "address with a space: want exit 1 naming /address";
      failures.push(ctx.transcript(`marketapi-validate endpoint (${want})`, invalid));
    }
    const request = await ctx.runBin("marketapi-validate", ["request", "order_book", "-", "--query"], {
      input: "symbol=BTCUSDT&limit=5",
    });
    if (request.code !== 0)
      failures.push(ctx.transcript("marketapi-validate request order_book --query", request));
    return failures;
  },
};
