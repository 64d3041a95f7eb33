// package.json against the server's contract: every server setting (docs/editor.md and the
// server's settings module) is contributed with the same default; colours and commands match.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { BUCKETS, colorId } from "../src/heat";
import { LANGUAGES } from "../src/languages.generated";

const root = join(__dirname, "..", "..");
const repo = join(root, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const properties: Record<string, { default?: unknown; markdownDescription?: string; description?: string }> =
  manifest.contributes.configuration.properties;

/** `| \`refscore.a\`, \`refscore.b\` | \`default\` | meaning |` rows of the settings table. */
function documentedSettings(): Map<string, unknown> {
  const doc = readFileSync(join(repo, "docs", "editor.md"), "utf8");
  const table = doc.split("## Settings (section `refscore`)")[1]?.split("\n## ")[0] ?? "";
  const out = new Map<string, unknown>();
  for (const line of table.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 4 || !cells[1].startsWith("`refscore.")) {
      continue;
    }
    const value = JSON.parse(cells[2].replace(/^`|`$/g, ""));
    for (const name of cells[1].matchAll(/`(refscore\.[\w.]+)`/g)) {
      out.set(name[1], value);
    }
  }
  return out;
}

function serverKeys(): string[] {
  const source = readFileSync(join(repo, "server", "refscore", "lsp", "settings.py"), "utf8");
  const block = source.split("_KEYS")[1]?.split("\n)\n")[0] ?? "";
  return [...block.matchAll(/\("([\w.]+)", "\w+"\)/g)].map((m) => `refscore.${m[1]}`);
}

test("every documented server setting is contributed with its default and a description", () => {
  const documented = documentedSettings();
  assert.ok(documented.size >= 12, `parsed only ${documented.size} settings from docs/editor.md`);
  for (const [name, value] of documented) {
    const property = properties[name];
    assert.ok(property, `${name} is not contributed`);
    assert.deepEqual(property.default, value, `${name} default`);
    assert.ok((property.markdownDescription ?? property.description ?? "").length > 20, `${name} needs a description`);
  }
});

test("the server's own settings list matches the documented one", () => {
  const keys = serverKeys();
  assert.ok(keys.length >= 12, `parsed only ${keys.length} keys from settings.py`);
  assert.deepEqual([...keys].sort(), [...documentedSettings().keys()].sort());
});

test("every heat bucket's colour is contributed for every theme kind", () => {
  const colors = new Map<string, { defaults: Record<string, string> }>(manifest.contributes.colors.map((c: { id: string }) => [c.id, c]));
  for (const bucket of BUCKETS) {
    const color = colors.get(colorId(bucket));
    assert.ok(color, `${colorId(bucket)} is not contributed`);
    for (const kind of ["dark", "light", "highContrast", "highContrastLight"]) {
      assert.match(color.defaults[kind] ?? "", /^#[0-9a-f]{8}$/i, `${colorId(bucket)} ${kind}`);
    }
  }
});

test("contributed commands are the ones the extension registers", () => {
  const source = readFileSync(join(root, "src", "commands.ts"), "utf8");
  const registered = [...source.matchAll(/^ {4}"(refscore\.\w+)":/gm)].map((m) => m[1]).sort();
  const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.ok(registered.length >= 8);
  assert.deepEqual(registered, contributed);
});

test("the extension activates for every language it scores", () => {
  assert.deepEqual(manifest.activationEvents, LANGUAGES.map((l) => `onLanguage:${l}`));
});

test("React flavours of JavaScript and TypeScript are sent to the server (.jsx, .tsx)", () => {
  for (const id of ["javascriptreact", "typescriptreact"]) {
    assert.ok(LANGUAGES.includes(id), `${id} is missing from the generated language list`);
  }
});

test("zero configuration: the bundled server by default, the set-up command, limited support in untrusted workspaces", () => {
  assert.equal(properties["refscore.importStrategy"].default, "useBundled");
  assert.equal(properties["refscore.interpreter"].default, "");
  for (const name of ["refscore.setup.torch", "refscore.setup.torchIndexUrl", "refscore.setup.findLinks", "refscore.setup.pipArgs"]) {
    assert.ok(properties[name], `${name} is not contributed`);
  }
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, "limited");
  for (const name of ["refscore.interpreter", "refscore.importStrategy", "refscore.server.args", "refscore.setup.findLinks"]) {
    assert.ok(untrusted.restrictedConfigurations.includes(name), `${name} must be restricted in untrusted workspaces`);
  }
  assert.ok(manifest.contributes.commands.some((c: { command: string }) => c.command === "refscore.setUpCodeBertScore"));
});

test("`vsce package` works the conventional way: a prepublish script, no node_modules, the bundle packaged", () => {
  assert.equal(manifest.scripts["vscode:prepublish"], "node scripts/prepublish.mjs");
  assert.deepEqual(manifest.vsce, { dependencies: false, allowMissingRepository: true, skipLicense: true });
  const ignore = readFileSync(join(root, ".vscodeignore"), "utf8").split("\n");
  for (const line of ["!dist/extension.js", "!bundled/libs/**", "!bundled/wheels/*.whl", "!bundled/bundle.json"]) {
    assert.ok(ignore.includes(line), `.vscodeignore lacks ${line}`);
  }
});
