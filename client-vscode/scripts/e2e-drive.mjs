// Drives code-server from headless Chromium: opens the workbench, waits for the harness extension's
// findings (written through the VS Code API), checks them, checks the status bar in the page and
// saves a screenshot of the editor with the heat map. Exit status 1 on any failed check.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { lensShows, statusShows } from "./e2e-shapes.cjs";

const { values: opts } = parseArgs({
  options: {
    url: { type: "string" }, result: { type: "string" }, screenshot: { type: "string" }, timeout: { type: "string", default: "480" },
    mode: { type: "string", default: "configured" },
  },
});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// waits are guards, scaled like the Python suite's (tests/support/timing.py) on a loaded machine
const SLOWDOWN = Math.max(1, Number(process.env.REFSCORE_TEST_SLOWDOWN) || 1);
const INFORMATION = 2; // vscode.DiagnosticSeverity.Information (3 on the LSP wire)

function check(findings) {
  const failures = [];
  const expect = (ok, what) => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
    if (!ok) failures.push(what);
  };
  expect(!findings.error, `harness ran without error ${findings.error ?? ""}`);
  const diags = findings.diagnostics ?? [];
  const summary = diags.find((d) => d.code === "refscore.summary");
  expect(summary?.severity === INFORMATION, "summary diagnostic with severity Information");
  expect(/CodeBLEU \d\.\d\d \(n-gram/.test(summary?.message ?? ""), `summary has CodeBLEU: ${summary?.message}`);
  expect(/CodeBERTScore P \d\.\d\d R \d\.\d\d F1 \d\.\d\d F3 \d\.\d\d/.test(summary?.message ?? ""), "summary has CodeBERTScore");
  const weak = diags.filter((d) => d.code === "refscore.weak-token");
  expect(weak.length > 0 && weak.every((d) => d.severity === INFORMATION && /similarity \d\.\d\d/.test(d.message)),
    `weak-token diagnostics (${weak.length})`);
  expect(/CodeBLEU/.test(findings.summaryHover ?? "") && /CodeBERTScore/.test(findings.summaryHover ?? ""), "hover on the summary line shows the scores");
  expect(/similarity \d\.\d\d/.test(findings.tokenHover ?? ""), "hover on a weak token shows its similarity");
  const lenses = findings.codeLenses ?? [];
  // per function: its scores (CodeBLEU, F3) and, where behaviour ran, how it behaves beside the reference
  const scoring = lenses.filter((l) => lensShows(l.title, ["CodeBLEU", "F3"]));
  const behaves = lenses.filter((l) => /behaves like .* on \d+\/\d+ inputs/.test(l.title));
  expect(scoring.length === 2 && scoring.length + behaves.length === lenses.length && behaves.length <= 2,
    `a code lens per function: ${JSON.stringify(lenses.map((l) => l.title))}`);
  expect(scoring.every((l) => l.command === "refscore.missingFromReference"), "lenses run refscore.missingFromReference");
  expect(statusShows(findings.statusText, ["CodeBLEU", "F3"]), `status item: ${findings.statusText}`);
  const heat = findings.heat;
  const drawn = heat ? heat.counts.weak + heat.counts.low + heat.counts.fair : 0;
  expect(heat?.version === findings.documentVersion && drawn > 0, `heat map drawn for the current version: ${JSON.stringify(heat)}`);
  expect(findings.sawBusy === true, "the status item spun while CodeBERTScore was pending");
  const edits = findings.heatFollowsEdits ?? {};
  expect(edits.followed === true && edits.back === true && edits.reverted > edits.edited,
    `the heat map follows an edit and its reversal: ${JSON.stringify(edits)}`);
  const setting = findings.settingReachesServer ?? {};
  expect(setting.before === true && setting.applied === true && setting.restored === true,
    `refscore.weakTokens.maxCount set in VS Code reaches the server: ${JSON.stringify(setting)}`);
  expect(findings.badInterpreterProbed === true, "the bad interpreter's failed start finished (no interpreter found)");
  expect(findings.stoppedWithBadInterpreter === true && findings.runningWithBadInterpreter === false,
    "a bad refscore.interpreter stops the server (restart on setting change)");
  expect(findings.recovered === true, "setting the good interpreter again brings the scores back");
  const badStatus = findings.statusWithBadInterpreter ?? {};
  expect(/RefScore: stopped/.test(badStatus.text ?? "") && badStatus.heat === null,
    `with no server the status item says it stopped, no stale scores or heat map: ${JSON.stringify(badStatus)}`);
  const crash = findings.crash ?? {};
  expect(crash.kills >= 5 && crash.running === false && /RefScore: stopped/.test(crash.statusText ?? "") && crash.heat === null,
    `a server killed until VS Code gives up shows as stopped, not stale scores: ${JSON.stringify(crash)}`);
  expect(crash.recovered === true, `RefScore: Restart Server after the crashes brings the scores back: ${JSON.stringify(crash)}`);
  expect(findings.heatAfterClose === null && findings.heatAfterReopen?.version === findings.documentVersion,
    "heat map dropped with its editor and redrawn when shown again");
  for (const [file, languageId] of [["Greeting.jsx", "javascriptreact"], ["List.tsx", "typescriptreact"]]) {
    const other = (findings.others ?? []).find((o) => o.file === file);
    expect(other?.languageId === languageId && /CodeBLEU \d\.\d\d \(n-gram/.test(other?.summary ?? "") &&
      /CodeBERTScore P \d\.\d\d/.test(other?.summary ?? "") && (other?.codeLenses ?? []).length > 0,
    `a ${languageId} file (${file}) is scored: ${JSON.stringify(other)}`);
  }
  return failures;
}

/** Passes when `locator` shows up within `ms`. */
async function shows(locator, ms) {
  try {
    await locator.first().waitFor({ timeout: ms * SLOWDOWN });
    return true;
  } catch {
    return false;
  }
}

/** Whether a notification with ``title`` whose text matches ``wanted`` was shown: as a toast, or
 * (a toast hides after a while, sooner than a busy machine gets here) in the notification centre. */
async function notified(page, title, wanted) {
  const toast = page.locator(".notification-toast", { hasText: title });
  if ((await shows(toast, 20_000)) && wanted.test(await toast.first().innerText())) {
    return true;
  }
  await runCommand(page, "Notifications: Show Notifications");
  const listed = page.locator(".notifications-center .notification-list-item", { hasText: title });
  const found = (await shows(listed, 20_000)) && wanted.test(await listed.first().innerText());
  if (!found) {  // what was there instead, for whoever reads the failure
    const seen = await page.locator(".notification-toast, .notifications-center .notification-list-item").allInnerTexts();
    console.log(`notifications shown: ${JSON.stringify(seen)}`);
  }
  await page.keyboard.press("Escape");
  return found;
}

/** Runs a command from the command palette by its title. */
async function runCommand(page, title) {
  await page.keyboard.press("F1");
  await page.keyboard.type(title);
  await shows(page.locator(".quick-input-widget .quick-input-list-entry", { hasText: title }), 10_000);
  await page.keyboard.press("Enter");
  await sleep(500);
}

/** What a person does: click the status item (score panel), run Score Selection from the palette. */
async function interact(page) {
  const failures = [];
  const report = (ok, what) => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
    if (!ok) failures.push(what);
  };
  await page.locator("footer .statusbar-item", { hasText: "CodeBLEU" }).first().click();
  const panel = page.locator(".quick-input-widget");
  // the panel is longer than the rows a quick pick draws: filter it to a component (the missing
  // entries of that kind match on their description), else page down to the missing list
  const opened = await shows(panel.locator(".quick-input-list", { hasText: "CodeBLEU" }), 20_000);
  await page.keyboard.type("dataflow");
  const component = await shows(panel.locator(".quick-input-list-entry", { hasText: /dataflow \d\.\d\d/ }), 5_000);
  const missingList = panel.locator(".quick-input-list", { hasText: "Missing from this file" });
  let missing = await shows(missingList, 3_000);
  if (!missing) {
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Backspace");
    for (let i = 0; i < 8 && !missing; i += 1) {
      await page.keyboard.press("PageDown");
      missing = await shows(missingList, 500);
    }
  }
  report(opened && component && missing, "clicking the status item opens the score panel with components and the missing list");
  await page.keyboard.press("Escape");
  await page.locator(".monaco-editor .view-lines").first().click();
  await page.keyboard.press("Control+A");
  await runCommand(page, "RefScore: Score Selection");
  report(await shows(page.locator(".notifications-toasts", { hasText: /Selection: CodeBLEU \d\.\d\d/ }), 60_000),
    "Score Selection shows the selection's scores (refscore/scoreText)");
  return failures;
}

/** Waits for a JSON file the harness writes; its content. */
async function findings(file, deadline, what) {
  while (!existsSync(file)) {
    if (Date.now() > deadline) {
      throw new Error(`no ${what} from the harness within ${opts.timeout} s`);
    }
    await sleep(1000);
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

/**
 * Zero configuration: CodeBLEU from the bundled server first; then a click on the status item (it
 * says CodeBERTScore needs setting up) runs RefScore: Set Up CodeBERTScore, whose one question is
 * answered in the page; the set-up must end with token highlights from the managed environment.
 */
async function zeroConfig(page, deadline) {
  const failures = [];
  const expect = (ok, what) => {
    console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
    if (!ok) failures.push(what);
  };
  const before = (await findings(`${opts.result}.before.json`, deadline, "first findings")).before ?? {};
  console.log(`CodeBLEU arrived after ${before.waitedSeconds} s`);
  expect(before.path?.commands?.length === 0 && before.path?.pythons?.length === 0,
    `no RefScore on the extension host's PATH: ${JSON.stringify(before.path)}`);
  expect(before.interpreter?.source === "PATH", `the bundled server runs with python on PATH: ${JSON.stringify(before.interpreter)}`);
  expect(/CodeBLEU \d\.\d\d \(n-gram/.test(before.summary ?? "") && !/CodeBERTScore P/.test(before.summary ?? ""),
    `zero-config summary has CodeBLEU: ${before.summary}`);
  expect(/CodeBLEU/.test(before.summaryHover ?? ""), "zero-config hover on the summary line shows CodeBLEU");
  const lenses = (before.codeLenses ?? []).filter((t) => !/behaves like .* on \d+\/\d+ inputs/.test(t));
  expect(lenses.length === 2 && lenses.every((t) => lensShows(t, ["CodeBLEU"]) && !/F3/.test(t)),
    `zero-config code lenses (besides behaviour's): ${JSON.stringify(before.codeLenses ?? [])}`);
  expect(before.bertNeedsSetup === true && statusShows(before.statusText, ["CodeBLEU"], ["CodeBERTScore: set up"]),
    `the status item says CodeBERTScore needs setting up: ${before.statusText}`);
  const item = page.locator("footer .statusbar-item", { hasText: "CodeBERTScore: set up" });
  expect(await shows(item, 30_000), "the status item shows it in the page");
  await item.first().click();
  const dialog = page.locator(".monaco-dialog-box");
  const asked = await shows(dialog.filter({ hasText: "Set up CodeBERTScore?" }), 30_000);
  const question = asked ? await dialog.first().innerText() : "";
  expect(asked && /download about \d+ MB/.test(question) && /bert-env/.test(question),
    `one question says what is downloaded, how big and where: ${question.replace(/\s+/g, " ").slice(0, 400)}`);
  if (asked) {
    await dialog.locator(".monaco-button", { hasText: "Set Up" }).first().click();
    expect(await shows(page.locator(".notifications-toasts", { hasText: "setting up CodeBERTScore" }), 30_000),
      "the set-up shows a progress notification");
  }
  const found = await findings(opts.result, deadline, "findings after the set-up");
  const after = found.after ?? {};
  console.log(`set-up and first CodeBERTScore took ${after.setupSeconds} s`);
  expect(after.interpreter?.source === "CodeBERTScore environment", `the server runs from the managed environment: ${JSON.stringify(after.interpreter)}`);
  expect(/CodeBERTScore P \d\.\d\d R \d\.\d\d F1 \d\.\d\d F3 \d\.\d\d/.test(after.summary ?? ""), `summary has CodeBERTScore after the set-up: ${after.summary}`);
  expect(after.weakTokens > 0 && after.heat === null,
    `token highlights after the set-up: ${after.weakTokens} weak tokens, no heat map until asked for: ${JSON.stringify(after.heat)}`);
  const toggled = found.afterToggle ?? {};
  const drawn = toggled.heat ? toggled.heat.counts.weak + toggled.heat.counts.low + toggled.heat.counts.fair : 0;
  expect(drawn > 0 && toggled.heat?.version === toggled.documentVersion,
    `RefScore: Toggle Heat Map draws it: ${JSON.stringify(toggled.heat)}`);
  expect(/similarity \d\.\d\d/.test(after.tokenHover ?? ""), "hover on a weak token shows its similarity");
  expect(statusShows(after.statusText, ["CodeBLEU", "F3"]) && !/set up/.test(after.statusText) && after.bertNeedsSetup === false,
    `status item after the set-up: ${after.statusText}`);
  return failures;
}

async function main() {
  const deadline = Date.now() + Number(opts.timeout) * 1000;
  rmSync(opts.result, { force: true });
  rmSync(`${opts.result}.before.json`, { force: true });
  const profile = mkdtempSync(join(tmpdir(), "refscore-e2e-chromium-"));
  // a fresh profile; flags that keep Chromium from reaching for the (closed) network
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 760 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.on("pageerror", (error) => console.log(`page error: ${error.message}`));
    await page.goto(opts.url, { waitUntil: "domcontentloaded" });
    await page.waitForSelector(".monaco-workbench", { timeout: 120_000 });
    console.log("workbench loaded; waiting for the harness");
    if (opts.mode === "zero-config") {
      const failures = await zeroConfig(page, deadline);
      await page.mouse.move(1000, 640);
      await sleep(1500);
      mkdirSync(dirname(opts.screenshot), { recursive: true });
      await page.screenshot({ path: opts.screenshot });
      console.log(`screenshot: ${opts.screenshot}`);
      if (failures.length > 0) {
        console.log(`${failures.length} check(s) failed`);
        process.exitCode = 1;
      }
      return;
    }
    const toasts = new Set(); // every notification toast seen while the harness runs: a toast
    // hides after a while, and later ones (the crash test's) crowd it out of the centre
    while (!existsSync(opts.result)) {
      if (Date.now() > deadline) {
        throw new Error(`no findings from the harness within ${opts.timeout} s`);
      }
      for (const text of await page.locator(".notification-toast").allInnerTexts()) {
        toasts.add(text);
      }
      await sleep(1000);
    }
    const findings = JSON.parse(readFileSync(opts.result, "utf8"));
    console.log(`scores arrived after ${findings.waitedSeconds} s`);
    const failures = check(findings);
    const title = "RefScore cannot start its server";
    const wanted = /\/nonexistent\/python \(setting refscore\.interpreter\): not found/;
    const shown = [...toasts].some((text) => text.includes(title) && wanted.test(text)) || await notified(page, title, wanted);
    console.log(`${shown ? "ok  " : "FAIL"} the bad interpreter gets one message naming it and the fix`);
    if (!shown) failures.push("bad-interpreter message");
    await runCommand(page, "Notifications: Clear All Notifications");
    const status = page.locator("footer .statusbar-item", { hasText: "CodeBLEU" });
    let visible = false;
    try {
      await status.first().waitFor({ timeout: 20_000 });
      visible = true;
    } catch {
      visible = false;
    }
    console.log(`${visible ? "ok  " : "FAIL"} the status bar shows CodeBLEU in the page`);
    if (!visible) failures.push("status bar in the page");
    await page.mouse.move(1000, 640); // below the code: no hover popup or tooltip in the picture
    await sleep(1500);
    mkdirSync(dirname(opts.screenshot), { recursive: true });
    await page.screenshot({ path: opts.screenshot });
    console.log(`screenshot: ${opts.screenshot}`);
    failures.push(...(await interact(page)));
    if (failures.length > 0) {
      console.log(`${failures.length} check(s) failed`);
      process.exitCode = 1;
    }
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
