// Every behaviour extension of every operation shows on the docs page, in words a reader can use.
import { loadOpenApi } from "@marketapi/spec";
import { BEHAVIOUR_EXTENSIONS, buildSpecModel } from "@marketapi/spec/model";
import { describe, expect, it } from "vitest";
import { surfaceVendorExtensions } from "../src/vendor-extensions.js";

const spec = loadOpenApi();
const surfaced = surfaceVendorExtensions(spec);
const model = buildSpecModel(spec);

function descriptionOf(pointer: string): string {
  const [, , path, method] = pointer.split("/");
  const decode = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");
  return surfaced.paths[decode(path!)][method!].description as string;
}

describe("behaviour on the docs page", () => {
  it("every behaviour extension an operation carries is named in its description", () => {
    let shown = 0;
    for (const operation of model.operations) {
      const description = descriptionOf(operation.pointer);
      for (const key of Object.keys(BEHAVIOUR_EXTENSIONS)) {
        if (operation.raw[key] === undefined) continue;
        expect(description, `${operation.operationId} ${key}`).toContain(`\`${key}\``);
        shown++;
      }
    }
    expect(shown).toBeGreaterThanOrEqual(25);
  });

  it("states the facts, marked as filled from the live API", () => {
    const depth = descriptionOf(model.operations.find((o) => o.operationId === "order_book")!.pointer);
    expect(depth).toContain("`bids` by price, descending (no ties)");
    expect(depth).toContain("above the maximum the request is truncated to 5000");
    expect(depth).toContain("*(filled from the live API)*");
    const orders = descriptionOf(model.operations.find((o) => o.operationId === "all_orders")!.pointer);
    expect(orders).toContain("at most 24 h between them (wider: error -1127)");
    expect(orders).toContain("`startTime` alone: the oldest items from the start");
    const order = descriptionOf(model.operations.find((o) => o.operationId === "new_order")!.pointer);
    expect(order).toContain("`cummulativeQuoteQty` is the sum of `price` × `qty`");
    expect(order).toContain("`IOC`, `FOK` (an unfilled remainder expires)");
  });
});
