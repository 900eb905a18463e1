#!/usr/bin/env node
// Launcher committed to git so npm can link the command at install time, before lib/ is built.
const { main } = await import("../lib/cli.js");
try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`marketapi-docs: internal error: ${message.replace(/\s*\n\s*/g, " ")}\n`);
  // Exit 3: an internal error (never 1, the input's fault, nor 2, a usage error).
  process.exitCode = 3;
}
