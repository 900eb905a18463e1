// The size budget of the runtime (minified + gzipped ESM with openapi-fetch): at most 10 kB.
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { measureBundle } from "./support/bundle-size.js";

const BUDGET = 10 * 1024;

it(`bundles for the browser within ${BUDGET} bytes gzipped, without the generated types`, async () => {
  const size = await measureBundle(fileURLToPath(new URL("../src/index.ts", import.meta.url)));
  expect(size.gzipped).toBeLessThanOrEqual(BUDGET);
  expect(size.inputs.some((file) => file.includes("openapi-fetch"))).toBe(true);
  expect(size.inputs.filter((file) => file.endsWith("spot-api.gen.ts"))).toEqual([]);
  expect(size.inputs.filter((file) => file.startsWith("node:"))).toEqual([]);
});
