// What the command writes: `--operations` shrinks the client and the validators alike, and the
// output is the same bytes on any machine: another working folder, time zone and locale, and
// absolute instead of relative paths on the command line.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanScratch, codegen, REPO_ROOT, scratchDir, snapshot } from "./cli-support.js";

const SHIPPED = createRequire(import.meta.url).resolve("@marketapi/spec/openapi.json");
const root = scratchDir("output");
afterAll(() => cleanScratch(root));

function readAll(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), "utf8")]));
}

describe.concurrent("marketapi-codegen output", () => {
  it("--operations: market data only, without the order operations and their types", async () => {
    const dir = join(root, "market-data");
    mkdirSync(dir);
    const operations = "ping,server_time,exchange_info,order_book,symbol_price_ticker";
    const result = await codegen(["--out", "out", "--operations", operations], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const files = readAll(join(dir, "out"));
    expect(Object.keys(files).sort()).toEqual([
      "client.gen.ts",
      "endpoint-validator.gen.ts",
      "endpoint.gen.ts",
      "facts.gen.ts",
      "methods.gen.ts",
      "operations.gen.ts",
      "spot-api.gen.ts",
      "validators-code.gen.ts",
      "validators-runtime.gen.ts",
      "validators.gen.ts",
    ]);
    for (const [name, text] of Object.entries(files)) {
      expect(text, name).not.toMatch(
        /new_order|cancel_order|open_orders|NewOrder|OrderFull|"\/api\/v3\/order"/,
      );
      expect(text.split("\n")[1], name).toBe(
        // The header records the options normalised: operationIds sorted (code-unit order).
        `// Do not edit it by hand: regenerate it with \`marketapi-codegen --out out --client --validators --operations ${operations.split(",").sort().join(",")}\`.`,
      );
    }
    expect(files["validators.gen.ts"]).toContain(
      'export const operationIds = ["ping", "server_time", "exchange_info", "order_book", "symbol_price_ticker"] as const;',
    );
    const table = files["operations.gen.ts"]!.split("export const operationTable")[1]!;
    expect(table.match(/^ {2}\w+: \{$/gm)).toHaveLength(5);
    // Smaller, not just renamed: the subset's validators hold a fraction of the full code.
    const full = readFileSync(
      join(REPO_ROOT, "packages/validators/src/generated/validators-code.gen.ts"),
      "utf8",
    );
    expect(files["validators-code.gen.ts"]!.length).toBeLessThan(full.length / 2);
  });

  it("is byte-identical from another folder, time zone and locale, and with absolute paths", async () => {
    const a = join(root, "machine-a");
    const b = join(root, "machine-b");
    for (const dir of [a, b]) {
      mkdirSync(join(dir, "specs"), { recursive: true });
      copyFileSync(SHIPPED, join(dir, "specs/spot-api.json"));
    }
    const [first, second] = await Promise.all([
      codegen(["--spec", "specs/spot-api.json", "--out", "src/generated"], {
        cwd: a,
        env: { ...process.env, TZ: "Pacific/Kiritimati", LANG: "tr_TR.UTF-8", LC_ALL: "tr_TR.UTF-8" },
      }),
      codegen(["--spec", join(b, "specs/spot-api.json"), "--out", join(b, "src/generated")], {
        cwd: b,
        env: { ...process.env, TZ: "America/St_Johns", LANG: "C", LC_ALL: "C" },
      }),
    ]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(second).toMatchObject({ code: 0, stderr: "" });
    const generated = snapshot(join(a, "src/generated"));
    expect(snapshot(join(b, "src/generated"))).toEqual(generated);

    const text = Object.values(readAll(join(a, "src/generated"))).join("\n");
    for (const path of [a, b, REPO_ROOT, homedir(), tmpdir()]) expect(text).not.toContain(path);
    expect(text).not.toContain(new Date().toISOString().slice(0, 10));
    expect(text.split("\n")[1]).toBe(
      "// Do not edit it by hand: regenerate it with `marketapi-codegen --spec specs/spot-api.json --out src/generated --client --validators`.",
    );
  });
});
