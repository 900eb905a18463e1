import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generate } from "../src/generate.js";
import { generateValidators } from "../src/validators/generate-validators.js";
import { buildRequestSchema } from "../src/validators/request-schemas.js";
import { FIXTURE_COMMAND, fixtureEndpointSchema, fixtureModel } from "./validators-support.js";

const committed = fileURLToPath(new URL("../../validators/src/generated/", import.meta.url));
/** The command in packages/validators' generate script, as the headers write it. */
const PACKAGE_COMMAND = "marketapi-codegen --out src/generated --validators";

describe("the committed validators of @marketapi/validators", () => {
  it("are what the generator makes of the repository's spec (run `npm run build` to refresh them)", async () => {
    const files = await generate({ generators: ["validators"], command: PACKAGE_COMMAND });
    // The folder's files (the sandbox document's validators have a folder of their own).
    const onDisk = readdirSync(committed, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
    expect(onDisk).toEqual(files.map((f) => f.path).sort());
    for (const file of files) {
      // toBe on strings prints a line diff of the first difference.
      expect(readFileSync(`${committed}${file.path}`, "utf8"), file.path).toBe(file.contents);
    }
  });
});

describe("the fixture spec", () => {
  const files = generateValidators(
    fixtureModel(),
    { command: FIXTURE_COMMAND, strictSchemas: true },
    { endpointSchema: fixtureEndpointSchema() },
  );

  it("gives the same files every time", () => {
    const again = generateValidators(
      fixtureModel(),
      { command: FIXTURE_COMMAND, strictSchemas: true },
      { endpointSchema: fixtureEndpointSchema() },
    );
    expect(again).toEqual(files);
  });

  it.each(files.map((f) => f.path))("%s matches its golden file", async (path) => {
    const file = files.find((f) => f.path === path)!;
    await expect(file.contents).toMatchFileSnapshot(`./golden/validators/expected/${path}`);
  });

  it("turns parameters and x- rules into the JSON Schema of the golden file", async () => {
    const model = fixtureModel();
    const place = model.operations.find((o) => o.operationId === "place")!;
    const request = buildRequestSchema(model, place, "#/$defs/place.request");
    await expect(`${JSON.stringify(request, null, 2)}\n`).toMatchFileSnapshot(
      "./golden/validators/place.request.json",
    );
  });
});
