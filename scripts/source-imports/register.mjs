// Runs a repository script on the workspace packages' TypeScript sources instead of their built
// dist/, so that it works on a fresh clone before any build and never waits for one:
//
//   node --import ./scripts/source-imports/register.mjs scripts/api-versions.mjs check
//
// tsx compiles the .ts files on the fly (cached); hooks.mjs sends each import of a workspace
// package (`@marketapi/diff`, `@marketapi/spec/model`, …) to the source file its exports map
// builds from. Imports of anything else resolve as usual.
import { register } from "node:module";
import { register as registerTsx } from "tsx/esm/api";

registerTsx();
// Registered after tsx, so it is asked first (Node chains the last registered hook first).
register("./hooks.mjs", import.meta.url);
