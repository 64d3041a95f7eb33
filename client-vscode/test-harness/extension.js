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

async function observe(folder, config, result) {
  const uri = vscode.Uri.file(path.join(folder, config.get("candidate")));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: false });
  const extension = vscode.extensions.getExtension("refscore.refscore");
  if (!extension) {
    throw new Error("the RefScore extension is not installed");
  }
  const api = extension.isActive ? extension.exports : await extension.activate();
  await api.ready;
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
  while (!predicate()) {
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
  await sleep(2000); // the failed start finishes (and shows its message)
  result.runningWithBadInterpreter = api.isRunning();
  await settings.update("interpreter", good, vscode.ConfigurationTarget.Workspace);
  result.recovered = await waitFor(() => {
    const summary = vscode.languages.getDiagnostics(uri).find((d) => codeOf(d) === "refscore.summary");
    return api.isRunning() && summary && /CodeBERTScore P/.test(summary.message) && api.heatOn(uri.toString());
  }, deadline);
}

exports.activate = async function activate() {
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0].uri.fsPath;
  const config = vscode.workspace.getConfiguration("refscoreHarness");
  const out = config.get("resultFile");
  if (!folder || !out) {
    return;
  }
  const result = { startedAt: new Date().toISOString() };
  try {
    await observe(folder, config, result);
  } catch (error) {
    result.error = String((error && error.stack) || error);
  }
  fs.writeFileSync(`${out}.tmp`, JSON.stringify(result, null, 2));
  fs.renameSync(`${out}.tmp`, out);
};

exports.deactivate = function deactivate() {};
