// vscode:prepublish (run by `vsce package`): the esbuild bundle of the extension, and bundled/
// (the language server's Python libraries, scripts/bundle.py) when it is missing or holds another
// target than REFSCORE_TARGET. Default target: this machine's (linux-x64, darwin-arm64, win32-x64, ...).
//   REFSCORE_TARGET  the platform to bundle for      REFSCORE_PYTHON  the Python whose pip bundles
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = (command, args) => {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  if (result.status !== 0) {
    console.error(`prepublish: ${command} ${args.join(" ")} failed`);
    process.exit(result.status ?? 1);
  }
};

run("npm", ["run", "--silent", "bundle"]);
const target = process.env.REFSCORE_TARGET ?? `${process.platform}-${process.arch}`;
const stampFile = join(root, "bundled", "bundle.json");
const stamp = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, "utf8")) : undefined;
if (stamp !== undefined && (process.env.REFSCORE_TARGET === undefined || stamp.target === target)) {
  console.log(`prepublish: bundled/ holds the libraries for ${stamp.target}`);
} else {
  const venv = join(root, "..", ".venv", process.platform === "win32" ? "Scripts/python.exe" : "bin/python");
  const python = process.env.REFSCORE_PYTHON ?? (existsSync(venv) ? venv : process.platform === "win32" ? "python" : "python3");
  run(python, [join("scripts", "bundle.py"), "--target", target]);
}
