// Golden files of the client generator on the fixture spec: the whole spec, and the subset that
// `--operations tickers,place_order` selects. Update them with `npx vitest run -u test/client-golden`.

import { readdirSync } from "node:fs";
import { loadSpec } from "@marketapi/spec-loader";
import { describe, expect, it } from "vitest";
import { generateClient } from "../src/client/generate-client.js";
import { selectOperations } from "../src/spec-input/select-operations.js";
import { buildModel } from "../src/spec-input/spec-model.js";

const FIXTURE = "test/fixtures/client-fixture.openapi.yaml";
const model = buildModel(
  await loadSpec(new URL("./fixtures/client-fixture.openapi.yaml", import.meta.url).pathname),
);
const source = { ...model, source: FIXTURE };

const scenarios = [
  { name: "full", operations: undefined },
  { name: "subset", operations: ["tickers", "place_order"] },
];

describe.each(scenarios)("$name", ({ name, operations }) => {
  it("matches the golden files", async () => {
    const command = `marketapi-codegen --spec ${FIXTURE} --out generated --client${operations ? ` --operations ${operations.join(",")}` : ""}`;
    const files = await generateClient(selectOperations(source, operations), { command });
    for (const file of files) {
      await expect(file.contents).toMatchFileSnapshot(`./golden/client/${name}/${file.path}`);
    }
    const golden = readdirSync(new URL(`./golden/client/${name}/`, import.meta.url)).sort();
    expect(golden, "a golden file no longer generated").toEqual(files.map((f) => f.path).sort());
  });
});
