/**
 * JUnit XML for CI: one <testsuite> per check, one <testcase> per operation, with <failure>
 * (message and the failing exchanges) or <skipped> (the reason). A run that could not start
 * (usage or connection error) is one <error> testcase, so CI shows why.
 */

import type { ContractResult } from "../result.js";
import { COVERAGE_DIMENSIONS, type OperationCoverage } from "../session/coverage.js";
import { exercisedNames, missingLines } from "./coverage.js";
import { exchangeText } from "./text.js";

/** Text safe inside XML attributes and elements: escaped, and without characters XML 1.0 forbids. */
export function xmlEscape(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 forbids
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "\ufffd")
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
  );
}

const attr = (name: string, value: string | number) => `${name}="${xmlEscape(String(value))}"`;

export function junitXml(result: ContractResult): string {
  const seconds = (result.stats.durationMs / 1000).toFixed(3);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = result.cells.filter((c) => c.status === "failed").length;
  const coverage = result.coverage?.operations ?? [];
  const unreached = coverage.filter((o) => o.unjudged !== undefined).length;
  const skipped = result.cells.filter((c) => c.status === "skipped").length + unreached;
  const errors = result.error ? 1 : 0;
  out.push(
    `<testsuites ${attr("name", "marketapi-contract")} ${attr("tests", result.cells.length + coverage.length + errors)} ${attr("failures", failures)} ${attr("errors", errors)} ${attr("skipped", skipped)} ${attr("time", seconds)}>`,
  );
  if (result.error) {
    out.push(`  <testsuite ${attr("name", "run")} tests="1" failures="0" errors="1" skipped="0" time="0">`);
    out.push(`    <testcase ${attr("classname", "run")} ${attr("name", result.error.kind)} time="0">`);
    out.push(
      `      <error ${attr("message", result.error.message)} ${attr("type", result.error.kind)}>${xmlEscape(result.error.message)}</error>`,
    );
    out.push("    </testcase>");
    out.push("  </testsuite>");
  }
  for (const check of result.checks) {
    const cells = result.cells.filter((c) => c.check === check);
    const f = cells.filter((c) => c.status === "failed").length;
    const s = cells.filter((c) => c.status === "skipped").length;
    out.push(
      `  <testsuite ${attr("name", check)} ${attr("tests", cells.length)} ${attr("failures", f)} errors="0" ${attr("skipped", s)} time="0">`,
    );
    out.push("    <properties>");
    out.push(`      <property ${attr("name", "target")} ${attr("value", result.target.baseUrl)}/>`);
    out.push(`      <property ${attr("name", "seed")} ${attr("value", result.seed)}/>`);
    out.push("    </properties>");
    for (const cell of cells) {
      const open = `    <testcase ${attr("classname", check)} ${attr("name", cell.operationId)} time="0"`;
      if (cell.status === "passed") {
        // Notes on what could not be observed travel with the passing case.
        if (cell.reason)
          out.push(
            `${open}>`,
            `      <system-out>${xmlEscape(`note: ${cell.reason}`)}</system-out>`,
            "    </testcase>",
          );
        else out.push(`${open}/>`);
      } else if (cell.status === "skipped") {
        out.push(
          `${open}>`,
          `      <skipped ${attr("message", cell.reason ?? "skipped")}/>`,
          "    </testcase>",
        );
      } else {
        const first = cell.failures[0];
        const details = cell.failures
          .map((failure) =>
            [
              failure.message,
              failure.schemaPath ? `schema path: ${failure.schemaPath}` : "",
              failure.exchange ? `case: ${failure.exchange.case}\n${exchangeText(failure.exchange)}` : "",
            ]
              .filter(Boolean)
              .join("\n"),
          )
          .join("\n\n");
        out.push(
          `${open}>`,
          `      <failure ${attr("message", first?.message ?? `${cell.failed} failures`)} ${attr("type", check)}>${xmlEscape(details)}</failure>`,
          "    </testcase>",
        );
      }
    }
    out.push("  </testsuite>");
  }
  if (coverage.length > 0) out.push(...coverageSuite(coverage));
  out.push("</testsuites>");
  return `${out.join("\n")}\n`;
}

/**
 * The coverage report as one test suite: a test case per operation, its exercised items as
 * properties and what was not exercised, with why, as its output; skipped when no check judged it.
 */
function coverageSuite(operations: readonly OperationCoverage[]): string[] {
  const unreached = operations.filter((o) => o.unjudged !== undefined).length;
  const out = [
    `  <testsuite ${attr("name", "coverage")} ${attr("tests", operations.length)} failures="0" errors="0" ${attr("skipped", unreached)} time="0">`,
  ];
  for (const operation of operations) {
    out.push(
      `    <testcase ${attr("classname", "coverage")} ${attr("name", operation.operationId)} time="0">`,
    );
    out.push("      <properties>");
    out.push(`        <property ${attr("name", "requests")} ${attr("value", operation.requests)}/>`);
    for (const dimension of COVERAGE_DIMENSIONS) {
      const items = operation[dimension];
      if (items.length === 0) continue;
      out.push(
        `        <property ${attr("name", `${dimension}.exercised`)} ${attr("value", `${items.filter((i) => i.exercised).length}/${items.length}: ${exercisedNames(operation, dimension)}`)}/>`,
      );
    }
    out.push("      </properties>");
    const missing = missingLines(operation);
    if (operation.unjudged !== undefined) out.push(`      <skipped ${attr("message", operation.unjudged)}/>`);
    if (missing.length > 0)
      out.push(`      <system-out>${xmlEscape(`not exercised:\n${missing.join("\n")}`)}</system-out>`);
    out.push("    </testcase>");
  }
  out.push("  </testsuite>");
  return out;
}
