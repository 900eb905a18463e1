#!/usr/bin/env node
// Launcher committed to git so npm can link the command at install time, before dist/ is built.
await import("../dist/cli.js");
