import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UsageError } from "../src/core/errors.js";
import { dateTimeRange, endpointTarget, parseHeaderEntries } from "../src/endpoint.js";

const examples = new URL("../../../specs/examples/endpoint/", import.meta.url);
const read = (dir: string, name: string) =>
  JSON.parse(readFileSync(new URL(`${dir}/${name}`, examples), "utf8"));
const NOW = Date.parse("2026-11-22T12:00:00Z");

const record = (extra: Record<string, unknown> = {}) => ({
  resourceType: "Endpoint",
  status: "active",
  connectionType: {
    system: "http://terminology.hl7.org/CodeSystem/endpoint-connection-type",
    code: "hl7-fhir-rest",
  },
  payloadType: [{ text: "spot trading API" }],
  address: "http://127.0.0.1:8080/",
  ...extra,
});

describe("Endpoint records", () => {
  it("turns address into the base URL and header entries into headers", () => {
    const target = endpointTarget(record({ header: ["X-Tenant: acme", "Authorization: Bearer a:b"] }), NOW);
    expect(target).toEqual({
      baseUrl: "http://127.0.0.1:8080",
      headers: { "X-Tenant": "acme", Authorization: "Bearer a:b" },
      trading: false,
      status: "active",
      label: "the Endpoint record",
    });
  });

  it("allows trading for status test only", () => {
    expect(endpointTarget(record({ status: "test" }), NOW).trading).toBe(true);
  });

  it.each(["off", "suspended", "error", "entered-in-error"])("refuses status %s and says why", (status) => {
    expect(() => endpointTarget(record({ status }), NOW)).toThrow(new RegExp(`status "${status}"`));
  });

  it("refuses when the period excludes now, reading partial dates as whole periods", () => {
    expect(() => endpointTarget(record({ period: { start: "2027" } }), NOW)).toThrow(/starts 2027/);
    expect(() => endpointTarget(record({ period: { end: "2026-10" } }), NOW)).toThrow(/ended 2026-10/);
    expect(
      endpointTarget(record({ period: { start: "2026-11-22", end: "2026-11" } }), NOW).baseUrl,
    ).toBeTruthy();
    expect(dateTimeRange("2026-11")).toEqual({
      start: Date.parse("2026-11-01T00:00:00Z"),
      end: Date.parse("2026-12-01T00:00:00Z"),
    });
    expect(dateTimeRange("2026-11-22T10:00:00+01:00")?.start).toBe(Date.parse("2026-11-22T09:00:00Z"));
  });

  it("refuses an invalid record with the validator's messages", () => {
    expect(() => endpointTarget({ resourceType: "Endpoint", status: "active" }, NOW)).toThrow(
      /not a valid FHIR Endpoint record/,
    );
    const invalid = readdirSync(new URL("invalid/", examples));
    expect(invalid.length, "invalid example records to refuse").toBeGreaterThan(0);
    for (const name of invalid) {
      expect(() => endpointTarget(read("invalid", name), NOW), name).toThrow(UsageError);
    }
  });

  it("refuses addresses that are not http(s) and headers that are not Name: value", () => {
    expect(() => endpointTarget(read("valid", "r4-endpoint-example-direct.json"), NOW)).toThrow(
      /not an http\(s\) URL/,
    );
    expect(() => endpointTarget(read("valid", "r4-template-hl7v2-mllp.json"), NOW)).toThrow(
      /not an http\(s\) URL/,
    );
    expect(() => endpointTarget(read("valid", "r4-endpoint-example.json"), NOW)).toThrow(
      /"bearer-code BASGS534s4" is not of the form/,
    );
    expect(() =>
      endpointTarget(read("valid", "marketapi-companions-and-inherited-fields.json"), NOW),
    ).toThrow(/has no status/);
    expect(endpointTarget(read("valid", "r4-template-hl7-fhir-rest.json"), NOW).baseUrl).toBe(
      "https://fhir.example.org/r4",
    );
    expect(parseHeaderEntries(["A:", "B:  x "])).toEqual({ A: "", B: "x" });
  });
});
