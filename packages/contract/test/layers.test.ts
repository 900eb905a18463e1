// The tester's layers import only downward (phases → checks → kit → session → http → core), no
// import circle exists, and no check imports another check: docs/architecture.md draws them, and
// test/support/layers.ts states the rules. The rules are tried first on made-up graphs, so that a
// rule that cannot fail is seen here.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCircles, importGraph, LAYERS, layerOf, layerViolations } from "./support/layers.js";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

describe("the layering rules", () => {
  const cases: Array<{ given: Record<string, string[]>; want: string[] }> = [
    { given: { "checks/list-order.ts": ["kit/context.ts"], "kit/context.ts": [] }, want: [] },
    {
      given: { "session/session.ts": ["checks/index.ts"], "checks/index.ts": [] },
      want: ["session/session.ts → checks/index.ts: session imports checks, a layer above it"],
    },
    {
      given: { "kit/market.ts": ["phases/probe.ts"] },
      want: ["kit/market.ts → phases/probe.ts: kit imports phases, a layer above it"],
    },
    {
      given: { "checks/a.ts": ["checks/b.ts"], "checks/b.ts": [] },
      want: ["checks/a.ts → checks/b.ts: a check imports another check's code (shared code belongs in kit/)"],
    },
    { given: { "checks/index.ts": ["checks/b.ts"], "checks/b.ts": ["checks/check.ts"] }, want: [] },
    {
      given: { "explore/sequence.ts": ["checks/order-arithmetic.ts"] },
      want: [
        "explore/sequence.ts → checks/order-arithmetic.ts: the exploration imports a check (shared code belongs in kit/)",
      ],
    },
    { given: { "runner.ts": ["phases/probe.ts", "checks/index.ts", "core/errors.ts"] }, want: [] },
  ];
  it.each(cases)("$given → $want", ({ given, want }) => {
    expect(layerViolations(new Map(Object.entries(given)))).toEqual(want);
  });

  it("finds import circles, type-only imports included", () => {
    const graph = new Map(
      Object.entries({
        "kit/a.ts": ["kit/b.ts"],
        "kit/b.ts": ["kit/c.ts"],
        "kit/c.ts": ["kit/a.ts"],
        "kit/d.ts": ["kit/a.ts"],
        "kit/e.ts": ["kit/e.ts"],
      }),
    );
    expect(importCircles(graph)).toEqual([["kit/a.ts", "kit/b.ts", "kit/c.ts"], ["kit/e.ts"]]);
  });

  it("places a module by its folder; the top layer holds the rest", () => {
    expect(LAYERS[layerOf("session/session.ts")]!.name).toBe("session");
    expect(LAYERS[layerOf("explore/index.ts")]!.name).toBe("checks");
    expect(LAYERS[layerOf("report/text.ts")]!.name).toBe("top");
    expect(LAYERS[layerOf("runner.ts")]!.name).toBe("top");
  });
});

describe("src/", () => {
  const graph = importGraph(SRC);

  it("reads every module and its imports", () => {
    expect(graph.size).toBeGreaterThan(80);
    expect(graph.get("phases/answer.ts")).toContain("checks/index.ts");
  });

  it("imports only downward, and no check imports another", () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it("has no import circle", () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it("has every module in a folder of a layer, or at the top", () => {
    const folders = new Set(
      [...graph.keys()].map((f) => (f.includes("/") ? f.slice(0, f.indexOf("/")) : "")),
    );
    const known = new Set(LAYERS.flatMap((layer) => layer.folders));
    // A new folder must be placed in a layer on purpose (the top layer takes report/ and run/ only).
    expect([...folders].filter((f) => !known.has(f)).sort()).toEqual(["report", "run"]);
  });
});
