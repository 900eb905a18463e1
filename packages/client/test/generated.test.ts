// The committed src/generated/ is exactly what the generator makes from the spec today: a change
// in the spec (or the generator) shows here as a line diff of the file that changed.
import { readdirSync, readFileSync } from "node:fs";
import { generate } from "@marketapi/codegen";
import { describe, expect, it } from "vitest";

const folder = new URL("../src/generated/", import.meta.url);
// The command `npm run generate` runs, as the generator writes it into the headers.
const command = "marketapi-codegen --out src/generated --client";
const files = await generate({ generators: ["client"], command });

describe("src/generated", () => {
  it("holds exactly the generated files", () => {
    expect(readdirSync(folder).sort()).toEqual(files.map((f) => f.path).sort());
  });

  it.each(files.map((f) => [f.path, f.contents] as const))("%s is up to date", (path, contents) => {
    const committed = readFileSync(new URL(path, folder), "utf8");
    expect(committed, `src/generated/${path} is stale: run \`npm run generate\` in packages/client`).toBe(
      contents,
    );
  });
});
