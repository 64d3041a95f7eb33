// Unit tests: bundles each test/*.test.ts with esbuild (a module that imports "vscode" or
// vscode-languageclient fails to bundle here, which keeps the drawing logic free of them) and
// runs the bundles with `node --test`.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "out", "test");
rmSync(outdir, { recursive: true, force: true });
const tests = readdirSync(join(root, "test")).filter((f) => f.endsWith(".test.ts"));
await build({
  entryPoints: tests.map((f) => join(root, "test", f)),
  outdir,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: "inline",
  logLevel: "warning",
});
const files = tests.map((f) => join(outdir, f.replace(/\.ts$/, ".js")));
const run = spawnSync(process.execPath, ["--enable-source-maps", "--test", ...files], { stdio: "inherit", cwd: root });
process.exit(run.status ?? 1);
