// The size budget of the default import (minified + gzipped ESM with its dependencies, what
// `import "@marketapi/client"` loads): at most 10 kB. The parts a call loads on first use stay out of it.
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { measureBundle } from "./support/bundle-size.js";

const BUDGET = 10 * 1024;

it(`bundles for the browser within ${BUDGET} bytes gzipped, without the generated types`, async () => {
  const size = await measureBundle(fileURLToPath(new URL("../src/index.ts", import.meta.url)));
  expect(size.gzipped).toBeLessThanOrEqual(BUDGET);
  // Measured from the entry's own chunk: the runtime is in it.
  expect(size.inputs.filter((file) => file.endsWith("create-api-client.ts"))).toHaveLength(1);
  expect(size.inputs.filter((file) => file.endsWith("spot-api.gen.ts"))).toEqual([]);
  expect(size.inputs.filter((file) => file.startsWith("node:"))).toEqual([]);
  // Loaded on first use: openapi-fetch (middleware, paths the spec does not name), paging, the
  // lookup of a lost answer, what a call does after an answer that is not final (resends, holds),
  // the server's clock, request bodies, the security schemes' rules and the parameter styles (with
  // the first send); and never the pacer, an option.
  const lazy = [
    "security.ts",
    "parameter-styles.ts",
    "nested-values.ts",
    "openapi-fetch",
    "paging.ts",
    "outcome-lookup.ts",
    "call-recovery.ts",
    "server-clock.ts",
    "request-body.ts",
  ];
  for (const part of lazy) {
    expect(
      size.inputs.filter((file) => file.includes(part)),
      part,
    ).toEqual([]);
    expect(
      size.lazyInputs.some((file) => file.includes(part)),
      part,
    ).toBe(true);
  }
  expect([...size.inputs, ...size.lazyInputs].filter((file) => file.includes("pacer/dist/pacer"))).toEqual(
    [],
  );
});
