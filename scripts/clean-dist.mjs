// The first step of a package's build: removes its dist/, so that a file whose source was moved or
// deleted is not shipped by the next pack (tsc writes files but never removes any).
import { rmSync } from "node:fs";

rmSync("dist", { recursive: true, force: true });
