import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { objectAt } from "../src/openapi-document.js";
import {
  makeRedocPageOffline,
  pageTemplate,
  redocJob,
  redoclyConfig,
  redocPageProblems,
} from "../src/redoc-page.js";

const LOGO = "https://cdn.redoc.ly/redoc/logo-mini-full.svg";
const telemetryOff =
  '<script type="module">hydrate(d, {"skipBundle":true,"disableTelemetry":true});</script>';

describe("the Redoc run", () => {
  it("builds with telemetry off", () => {
    expect(redoclyConfig()).toMatch(/^telemetry: off$/m);
    expect(redoclyConfig()).toMatch(/^openapi:\n {2}layout: "three-panel"$/m);
  });

  it("uses a template with Redoc's placeholders, an inline favicon and no remote asset", () => {
    const template = pageTemplate(loadOpenApi());
    for (const placeholder of ["{{title}}", "{{{redocHead}}}", "{{{redocHTML}}}"])
      expect(template).toContain(placeholder);
    expect(template).toContain('<link rel="icon" href="data:image/svg+xml,');
    expect(template).not.toMatch(/\b(src|href)="https?:/);
  });

  it("renders the surfaced spec, with the project's logo inline", () => {
    const job = redocJob(loadOpenApi());
    const spec = JSON.parse(job.spec);
    const logo = objectAt(objectAt(spec.info)["x-logo"]);
    expect(String(logo.url)).toMatch(/^data:image\/svg\+xml,/);
    expect(logo.href).toBe("index.html");
    expect(String(objectAt(spec.info).description)).toContain("## Request signing");
    expect(job.output).toBe("api.html");
  });
});

describe("the built page", () => {
  it("loses its one remote asset, the Redocly footer logo", () => {
    const built = `${telemetryOff}<img src=\`${LOGO}\`>`;
    expect(redocPageProblems(built)).toEqual([expect.stringContaining(LOGO)]);
    const offline = makeRedocPageOffline(built);
    expect(offline).not.toContain("cdn.redoc.ly");
    expect(offline).toContain("data:image/svg+xml,");
    expect(offline).not.toContain("`data:image/svg+xml,%60"); // no backtick that would end the JS template string
    expect(redocPageProblems(offline)).toEqual([]);
  });

  it("is refused when telemetry is on or the script comes from a CDN", () => {
    expect(redocPageProblems('{"skipBundle":true}')).toEqual([expect.stringContaining("disableTelemetry")]);
    const cdn = `${telemetryOff}<script type="module" src="https://cdn.redocly.com/redoc/v3/bundles/redoc.standalone.js"></script>`;
    expect(redocPageProblems(cdn)).toEqual([expect.stringContaining("--inlineBundle")]);
  });
});
