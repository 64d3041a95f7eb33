// Test-only extension: observes the RefScore extension through the public VS Code API and writes
// what it saw to refscoreHarness.resultFile. It records facts; e2e-drive.mjs judges them.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vscode = require("vscode");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function codeOf(diagnostic) {
  const code = diagnostic.code;
  return typeof code === "object" && code !== null ? String(code.value) : String(code);
}

function hoverText(hovers) {
  return (hovers || [])
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === "string" ? c : c.value))
    .join("\n");
}

function plainDiagnostic(d) {
  return {
    code: codeOf(d),
    source: d.source,
    severity: d.severity,
    message: d.message,
    range: [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character],
  };
}

/** Opens the candidate file and waits for the RefScore extension's API to be ready. */
async function openCandidate(folder, config) {
  const uri = vscode.Uri.file(path.join(folder, config.get("candidate")));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: false });
  const extension = vscode.extensions.getExtension("refscore.refscore");
  if (!extension) {
    throw new Error("the RefScore extension is not installed");
  }
  const api = extension.isActive ? extension.exports : await extension.activate();
  await api.ready;
  return { uri, doc, api };
}

async function observe(folder, config, result) {
  const { uri, doc, api } = await openCandidate(folder, config);
  result.serverRunning = api.isRunning();
  const deadline = Date.now() + config.get("timeoutSeconds", 300) * 1000;
  const started = Date.now();
  let diagnostics = [];
  let sawBusy = false;
  for (;;) {
    diagnostics = vscode.languages.getDiagnostics(uri).filter((d) => d.source === "refscore");
    const status = api.statusText() || "";
    sawBusy = sawBusy || status.includes("sync~spin");
    const summary = diagnostics.find((d) => codeOf(d) === "refscore.summary");
    const heat = api.heatOn(uri.toString());
    const complete = summary && /CodeBERTScore P/.test(summary.message) && diagnostics.some((d) => codeOf(d) === "refscore.weak-token") && heat;
    if (complete || Date.now() > deadline) {
      break;
    }
    await sleep(250);
  }
  result.waitedSeconds = (Date.now() - started) / 1000;
  result.sawBusy = sawBusy;
  result.documentVersion = doc.version;
  result.diagnostics = diagnostics.map(plainDiagnostic);
  const summary = diagnostics.find((d) => codeOf(d) === "refscore.summary");
  if (summary) {
    result.summaryHover = hoverText(await vscode.commands.executeCommand("vscode.executeHoverProvider", uri, summary.range.start));
  }
  const weak = diagnostics.find((d) => codeOf(d) === "refscore.weak-token");
  if (weak) {
    result.tokenHover = hoverText(await vscode.commands.executeCommand("vscode.executeHoverProvider", uri, weak.range.start));
  }
  const lenses = (await vscode.commands.executeCommand("vscode.executeCodeLensProvider", uri, 10)) || [];
  result.codeLenses = lenses.map((l) => ({ line: l.range.start.line, title: l.command && l.command.title, command: l.command && l.command.command }));
  result.statusText = api.statusText();
  result.heat = api.heatOn(uri.toString()) || null;
  // a heat map survives the editor being hidden and shown again (redraw on visible-editor change)
  await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  await sleep(300);
  result.heatAfterClose = api.heatOn(uri.toString()) || null;
  await vscode.window.showTextDocument(doc, { preview: false });
  await sleep(300);
  result.heatAfterReopen = api.heatOn(uri.toString()) || null;
  await breakAndRecover(uri, api, deadline, result);
  await crashAndRecover(uri, api, deadline, result);
  await editAndRevert(doc, api, deadline, result);
  await changeSetting(uri, deadline, result);
  await scoreOthers(folder, config.get("others", []), deadline, result);
  await vscode.window.showTextDocument(doc, { preview: false }); // the main file again, for the screenshot
  await waitFor(() => api.heatOn(uri.toString()), Math.min(deadline, Date.now() + 30_000));
}

/** Other files (e.g. .jsx, .tsx) opened one by one: the language VS Code gave each and its summary. */
async function scoreOthers(folder, others, deadline, result) {
  result.others = [];
  for (const name of others) {
    const uri = vscode.Uri.file(path.join(folder, name));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: false });
    const started = Date.now();
    const summary = () => vscode.languages.getDiagnostics(uri).find((d) => d.source === "refscore" && codeOf(d) === "refscore.summary");
    await waitFor(() => summary() && /CodeBERTScore P/.test(summary().message), Math.min(deadline, Date.now() + 120_000));
    const lenses = (await vscode.commands.executeCommand("vscode.executeCodeLensProvider", uri, 10)) || [];
    result.others.push({
      file: name,
      languageId: doc.languageId,
      waitedSeconds: (Date.now() - started) / 1000,
      summary: summary() ? summary().message : null,
      codeLenses: lenses.map((l) => l.command && l.command.title),
    });
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  }
}

async function waitFor(predicate, deadline) {
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      return false;
    }
    await sleep(250);
  }
  return true;
}

/** A server setting changed in VS Code reaches the server without a restart (weak-token count). */
async function changeSetting(uri, deadline, result) {
  const settings = vscode.workspace.getConfiguration("refscore");
  const weakCount = () => vscode.languages.getDiagnostics(uri).filter((d) => codeOf(d) === "refscore.weak-token").length;
  const soon = () => Math.min(deadline, Date.now() + 60_000);
  // the default (5) first: a save or edit just before may have left CodeBLEU-only diagnostics
  const before = await waitFor(() => weakCount() === 5, soon());
  await settings.update("weakTokens.maxCount", 2, vscode.ConfigurationTarget.Workspace);
  const applied = await waitFor(() => weakCount() === 2, soon());
  await settings.update("weakTokens.maxCount", undefined, vscode.ConfigurationTarget.Workspace);
  const restored = await waitFor(() => weakCount() === 5, soon());
  result.settingReachesServer = { before, applied, restored, final: weakCount() };
}

/** After an edit, and the edit that takes it back, the heat map follows the newest version. */
async function editAndRevert(doc, api, deadline, result) {
  const uri = doc.uri.toString();
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, new vscode.Position(doc.lineCount, 0), "print(running_max([3, 1, 4]))\n");
  await vscode.workspace.applyEdit(edit);
  const edited = doc.version;
  const followed = await waitFor(() => api.heatOn(uri) && api.heatOn(uri).version === edited, deadline);
  const revert = new vscode.WorkspaceEdit();
  revert.delete(doc.uri, new vscode.Range(doc.lineCount - 2, 0, doc.lineCount - 1, 0));
  await vscode.workspace.applyEdit(revert);
  const reverted = doc.version;
  const back = await waitFor(() => api.heatOn(uri) && api.heatOn(uri).version === reverted, deadline);
  await doc.save(); // the same text as before: nothing left to ask about
  result.heatFollowsEdits = { edited, reverted, followed, back, dirty: doc.isDirty };
}

/** A bad refscore.interpreter stops the server with a message; the good one brings it back. */
async function breakAndRecover(uri, api, deadline, result) {
  const settings = vscode.workspace.getConfiguration("refscore");
  const good = settings.get("interpreter");
  await settings.update("interpreter", "/nonexistent/python", vscode.ConfigurationTarget.Workspace);
  result.stoppedWithBadInterpreter = await waitFor(() => !api.isRunning(), Math.min(deadline, Date.now() + 30_000));
  // the failed start finishes: its probe of the interpreters found none (then the message shows);
  // an event, not a clock: on a loaded machine the probe takes longer than any fixed pause
  result.badInterpreterProbed = await waitFor(() => api.interpreter() === undefined, Math.min(deadline, Date.now() + 120_000));
  await sleep(500);
  result.runningWithBadInterpreter = api.isRunning();
  result.statusWithBadInterpreter = { text: api.statusText(), heat: api.heatOn(uri.toString()) || null };
  await settings.update("interpreter", good, vscode.ConfigurationTarget.Workspace);
  result.recovered = await waitFor(() => {
    const summary = vscode.languages.getDiagnostics(uri).find((d) => codeOf(d) === "refscore.summary");
    return api.isRunning() && summary && /CodeBERTScore P/.test(summary.message) && api.heatOn(uri.toString());
  }, deadline);
}

/** Process ids of this extension host's children running `refscore serve` (the language server). */
function serverPids() {
  const pids = [];
  for (const name of fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (parent === process.pid && argv.includes("refscore") && argv.includes("serve")) {
        pids.push(Number(name));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/**
 * The server is killed until VS Code gives up restarting it (its client restarts a crashed server
 * 4 times in 3 minutes): the status item must then say it stopped (no stale scores, no heat map);
 * RefScore: Restart Server brings the scores back.
 */
async function crashAndRecover(uri, api, deadline, result) {
  const kills = [];
  const soon = () => Math.min(deadline, Date.now() + 30_000);
  for (let attempt = 0; attempt < 8; attempt++) {
    const pids = await waitFor(() => serverPids().length > 0, soon()) ? serverPids() : [];
    if (pids.length === 0) {
      break; // not restarted any more
    }
    for (const pid of pids) {
      process.kill(pid, "SIGKILL");
      kills.push(pid);
    }
    await waitFor(() => !pids.some((pid) => serverPids().includes(pid)), soon());
    await sleep(500);
    if (!(await waitFor(() => serverPids().length > 0, Date.now() + 5000))) {
      break;
    }
  }
  await sleep(1000);
  result.crash = { kills: kills.length, running: api.isRunning(), statusText: api.statusText(), heat: api.heatOn(uri.toString()) || null };
  await vscode.commands.executeCommand("refscore.restartServer");
  result.crash.recovered = await waitFor(() => {
    const summary = vscode.languages.getDiagnostics(uri).find((d) => codeOf(d) === "refscore.summary");
    return api.isRunning() && summary && /CodeBERTScore P/.test(summary.message) && api.heatOn(uri.toString()) &&
      /CodeBLEU/.test(api.statusText() || "");
  }, deadline);
  result.crash.statusAfter = api.statusText();
}

/** What a file shows now: its summary, hovers, lenses, weak tokens, heat map and the status item. */
async function snapshot(uri, api) {
  const diagnostics = vscode.languages.getDiagnostics(uri).filter((d) => d.source === "refscore");
  const summary = diagnostics.find((d) => codeOf(d) === "refscore.summary");
  const weak = diagnostics.filter((d) => codeOf(d) === "refscore.weak-token");
  const lenses = (await vscode.commands.executeCommand("vscode.executeCodeLensProvider", uri, 10)) || [];
  return {
    summary: summary ? summary.message : null,
    summaryHover: summary ? hoverText(await vscode.commands.executeCommand("vscode.executeHoverProvider", uri, summary.range.start)) : null,
    tokenHover: weak[0] ? hoverText(await vscode.commands.executeCommand("vscode.executeHoverProvider", uri, weak[0].range.start)) : null,
    weakTokens: weak.length,
    codeLenses: lenses.map((l) => l.command && l.command.title),
    heat: api.heatOn(uri.toString()) || null,
    statusText: api.statusText(),
    bertNeedsSetup: api.bertNeedsSetup(),
    interpreter: api.interpreter() || null,
  };
}

/**
 * Zero configuration: no RefScore settings and no RefScore on PATH. CodeBLEU must show from the
 * bundled server; then (the driver runs RefScore: Set Up CodeBERTScore and confirms) token
 * highlights must follow from the managed environment. Writes RESULT.before.json, then RESULT.
 */
async function zeroConfig(folder, config, out, result) {
  const { uri, doc, api } = await openCandidate(folder, config);
  const summary = () => vscode.languages.getDiagnostics(uri).find((d) => d.source === "refscore" && codeOf(d) === "refscore.summary");
  const started = Date.now();
  await waitFor(() => summary() && /CodeBLEU \d/.test(summary().message) && /CodeBERTScore: set up/.test(api.statusText() || ""),
    Date.now() + 180_000);
  await waitFor(async () => ((await vscode.commands.executeCommand("vscode.executeCodeLensProvider", uri, 10)) || []).length > 0, Date.now() + 30_000);
  result.before = { waitedSeconds: (Date.now() - started) / 1000, path: refscoreOnPath(), ...(await snapshot(uri, api)) };
  write(`${out}.before.json`, result);
  const setupStarted = Date.now();
  const deadline = Date.now() + config.get("timeoutSeconds", 900) * 1000;
  await waitFor(() => summary() && /CodeBERTScore P/.test(summary().message) &&
    vscode.languages.getDiagnostics(uri).some((d) => codeOf(d) === "refscore.weak-token"), deadline);
  result.after = { setupSeconds: (Date.now() - setupStarted) / 1000, documentVersion: doc.version, ...(await snapshot(uri, api)) };
  // the heat map is off until asked for; one command draws it
  await vscode.commands.executeCommand("refscore.toggleHeatMap");
  await waitFor(() => api.heatOn(uri.toString()), Date.now() + 30_000);
  result.afterToggle = { documentVersion: doc.version, heat: api.heatOn(uri.toString()) || null };
}

/** What the extension host's PATH offers: a refscore command, a python3/python that imports refscore. */
function refscoreOnPath() {
  const dirs = (process.env.PATH || "").split(path.delimiter).filter(Boolean);
  const commands = dirs.filter((dir) => fs.existsSync(path.join(dir, "refscore")));
  const pythons = ["python3", "python"].filter((python) => {
    const run = require("node:child_process").spawnSync(python, ["-c", "import refscore"], { env: { ...process.env, PYTHONPATH: "" } });
    return run.status === 0;
  });
  return { commands, pythons };
}

function write(file, result) {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(result, null, 2));
  fs.renameSync(`${file}.tmp`, file);
}

exports.activate = async function activate() {
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0].uri.fsPath;
  const config = vscode.workspace.getConfiguration("refscoreHarness");
  const out = config.get("resultFile");
  if (!folder || !out) {
    return;
  }
  const result = { startedAt: new Date().toISOString(), mode: config.get("mode") };
  try {
    if (config.get("mode") === "zeroConfig") {
      await zeroConfig(folder, config, out, result);
    } else {
      await observe(folder, config, result);
    }
  } catch (error) {
    result.error = String((error && error.stack) || error);
  }
  write(out, result);
};

exports.deactivate = function deactivate() {};
