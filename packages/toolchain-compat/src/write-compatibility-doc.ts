// `npm run docs`: writes docs/compatibility.md from the suite's declarations.
import { writeFileSync } from "node:fs";
import { COMPATIBILITY_DOC, renderCompatibilityDoc } from "./compatibility-doc.js";
import { DRIVERS } from "./drivers/index.js";

const target = new URL(`../../../${COMPATIBILITY_DOC}`, import.meta.url).pathname;
writeFileSync(target, renderCompatibilityDoc(DRIVERS));
console.log(`toolchain-compat: wrote ${COMPATIBILITY_DOC}`);
