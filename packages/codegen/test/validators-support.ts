// The fixture spec of the validators generator's tests (test/golden/validators/).
import { readFileSync } from "node:fs";
import { parseSpecText } from "../src/spec-input/load-spec.js";
import { buildModel, type SourcedSpecModel } from "../src/spec-input/spec-model.js";

const golden = new URL("./golden/validators/", import.meta.url);

export const FIXTURE_COMMAND = "marketapi-codegen --spec fixture.openapi.yaml --out generated --validators";

export function fixtureText(): string {
  return readFileSync(new URL("fixture.openapi.yaml", golden), "utf8");
}

/** The model of the fixture spec, or of a variant of its text. */
export function fixtureModel(text: string = fixtureText()): SourcedSpecModel {
  return buildModel({
    source: "fixture.openapi.yaml",
    document: parseSpecText("fixture.openapi.yaml", text),
  });
}

export function fixtureEndpointSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL("fixture-endpoint.schema.json", golden), "utf8"));
}
