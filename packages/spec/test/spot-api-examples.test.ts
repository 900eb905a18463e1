// Every example in the spec is valid against the schema it illustrates (ajv 2020, strict mode).
import { describe, expect, it } from "vitest";
import { createSpecAjv } from "./support/ajv.js";
import { type Json, listOperations, loadSourceSpec, resolve } from "./support/openapi.js";

const spec = loadSourceSpec();
const { compile } = createSpecAjv(spec);

interface ExampleCase {
  where: string;
  schema: Json;
  example: Json;
}

function collectExamples(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  for (const { operation } of listOperations(spec)) {
    for (const [status, ref] of Object.entries<Json>(operation.responses)) {
      const response = resolve(spec, ref);
      for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
        cases.push({
          where: `${operation.operationId} ${status} ${type}`,
          schema: media.schema,
          example: media.example,
        });
      }
      for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
        const h = resolve(spec, header);
        if (h.example !== undefined)
          cases.push({
            where: `${operation.operationId} ${status} header ${name}`,
            schema: h.schema,
            example: h.example,
          });
      }
    }
    for (const ref of operation.parameters ?? []) {
      const p = resolve(spec, ref);
      if (p.example !== undefined)
        cases.push({
          where: `${operation.operationId} parameter ${p.name}`,
          schema: p.schema,
          example: p.example,
        });
      for (const media of Object.values<Json>(p.content ?? {})) {
        if (media.example !== undefined)
          cases.push({
            where: `${operation.operationId} parameter ${p.name}`,
            schema: media.schema,
            example: media.example,
          });
      }
    }
  }
  for (const [name, schema] of Object.entries<Json>(spec.components.schemas)) {
    if (schema.example !== undefined)
      cases.push({ where: `schema ${name}`, schema, example: schema.example });
  }
  return cases;
}

const cases = collectExamples();

describe("examples", () => {
  it("covers every response of every operation", () => {
    const responses = listOperations(spec).reduce(
      (n, { operation }) => n + Object.keys(operation.responses).length,
      0,
    );
    expect(
      cases.filter(
        (c) => !c.where.includes("header") && !c.where.includes("parameter") && !c.where.startsWith("schema"),
      ),
    ).toHaveLength(responses);
  });

  it.each(cases.map((c) => [c.where, c] as const))("%s", (_where, c) => {
    const validate = compile(c.schema);
    const valid = validate(c.example);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  it("a broken example is caught (the check can fail)", () => {
    const validate = compile({ $ref: "#/components/schemas/Trade" });
    expect(
      validate({
        id: 1,
        price: 4.1,
        qty: "1",
        quoteQty: "1",
        time: 1,
        isBuyerMaker: true,
        isBestMatch: true,
      }),
    ).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe("/price");
  });
});
