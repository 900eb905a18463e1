// Writes the bundled spec files into dist/. Run by `npm run build` in this package; a build step,
// so it is not part of the published package (which has no dependencies).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleSandbox, bundleSpecs, SpecSourceError } from "./bundle-specs.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const specsDir = join(packageDir, "..", "..", "specs");
const outDir = join(packageDir, "dist");

try {
  const openapiYaml = readFileSync(join(specsDir, "spot-api.openapi.yaml"), "utf8");
  const files = [
    ...bundleSpecs({
      openapiYaml,
      endpointSchemaJson: readFileSync(join(specsDir, "endpoint.schema.json"), "utf8"),
    }),
    bundleSandbox(readFileSync(join(specsDir, "sandbox.openapi.yaml"), "utf8"), openapiYaml),
  ];
  mkdirSync(outDir, { recursive: true });
  for (const file of files) writeFileSync(join(outDir, file.path), file.contents);
  console.log(`spec: wrote ${files.map((f) => `dist/${f.path}`).join(", ")}`);
} catch (error) {
  console.error(error instanceof SpecSourceError ? error.message : error);
  process.exit(1);
}
