/** One running server: chooses the interpreter and the libraries, starts, stops and restarts the client. */

import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient, State } from "vscode-languageclient/node";
import { type ClientHooks, createClient } from "./client";
import { candidates, failureMessage, findInterpreter, type Found, type ImportStrategy, probeWith, serverEnv } from "./interpreter";
import { pythonExtensionInterpreter } from "./pythonExtension";
import { needsSetup, parseStatus, type ServerStatus, statusFromInitialize } from "./serverStatus";
import { isReady, type ManagedEnv } from "./setupPlan";

const PROBE_TIMEOUT_MS = 60_000;

export interface SessionHooks extends Omit<ClientHooks, "serverStatus"> {
  /** What the server can score changed (its initialize result, a `refscore/status`), or it stopped (undefined). */
  statusChanged(status: ServerStatus | undefined): void;
  /** No server runs now (it stopped, crashed, or could not start); `reason` says what is known. */
  serverStopped(reason?: string): void;
  /** A server runs (started, or restarted after a crash). */
  serverRunning(): void;
}

/** What the extension carries: the bundled libraries and the refscore wheel (absent in a bare build). */
export class Bundle {
  constructor(private readonly root: string) {}

  get libs(): string | undefined {
    const libs = path.join(this.root, "bundled", "libs");
    return existsSync(path.join(libs, "refscore")) ? libs : undefined;
  }

  get wheel(): string | undefined {
    const dir = path.join(this.root, "bundled", "wheels");
    const name = existsSync(dir) ? readdirSync(dir).find((f) => /^refscore-.*\.whl$/.test(f)) : undefined;
    return name === undefined ? undefined : path.join(dir, name);
  }
}

export class Session implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  /** What the running server says it can score. */
  status: ServerStatus | undefined;
  /** The interpreter the running server uses (and what it has). */
  found: Found | undefined;
  /** How the running server was started: `refscore setup` runs the same way. */
  launch: { python: string; env: NodeJS.ProcessEnv } | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly hooks: SessionHooks,
    private readonly bundle: Bundle,
    private readonly managed: ManagedEnv,
  ) {}

  get running(): boolean {
    return this.client?.isRunning() ?? false;
  }

  /** The server says CodeBERTScore is wanted and needs `refscore setup` with its interpreter. */
  get bertNeedsSetup(): boolean {
    return needsSetup(this.status);
  }

  private setStatus(status: ServerStatus | undefined): void {
    this.status = status;
    this.hooks.statusChanged(status);
  }

  /** Starts the server unless it runs or is starting. */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Bundled libraries unless the user chose the environment's own refscore (never in untrusted workspaces). */
  private strategy(config: vscode.WorkspaceConfiguration): { strategy: ImportStrategy; libs: string | undefined } {
    const trusted = vscode.workspace.isTrusted;
    const wanted = trusted ? config.get<ImportStrategy>("importStrategy", "useBundled") : "useBundled";
    const libs = this.bundle.libs;
    if (wanted === "useBundled" && libs === undefined) {
      this.output.warn("This build of the extension has no bundled libraries (bundled/libs): using the interpreter's own refscore");
      return { strategy: "fromEnvironment", libs: undefined };
    }
    return { strategy: wanted === "fromEnvironment" ? "fromEnvironment" : "useBundled", libs: wanted === "fromEnvironment" ? undefined : libs };
  }

  private async doStart(): Promise<void> {
    const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const config = vscode.workspace.getConfiguration("refscore", resource);
    const trusted = vscode.workspace.isTrusted;
    const { strategy, libs } = this.strategy(config);
    const setting = config.get<string>("interpreter")?.trim();
    const fromPython = setting || !trusted ? undefined : await pythonExtensionInterpreter(resource, (l) => this.output.info(l));
    const list = candidates({ setting, managed: isReady(this.managed) ? this.managed.python : undefined, pythonExtension: fromPython, trusted });
    const env = serverEnv(process.env, libs);
    const { found, failures } = await findInterpreter(list, probeWith(PROBE_TIMEOUT_MS, env, strategy));
    for (const failure of failures) {
      this.output.warn(`${failure.candidate.command} (${failure.candidate.source}): ${failure.reason}`);
    }
    this.found = found;
    if (found === undefined) {
      const message = failureMessage(failures, strategy);
      this.output.error(message);
      this.hooks.serverStopped("no Python with refscore was found (see the log)");
      void vscode.window.showErrorMessage(message, "Open Settings", "Show Log").then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "refscore.interpreter");
        } else if (choice === "Show Log") {
          this.output.show();
        }
      });
      return;
    }
    const args = config.get<string[]>("server.args") ?? [];
    const origin = libs !== undefined ? "bundled" : "from the environment";
    this.output.info(
      `Starting refscore ${found.facts.refscore} (${origin}${trusted ? "" : ", untrusted workspace"}) with ${found.candidate.command} ` +
        `(${found.candidate.source}), Python ${found.facts.python}`,
    );
    this.setStatus(undefined);
    this.launch = { python: found.candidate.command, env };
    const hooks: ClientHooks = {
      ...this.hooks,
      serverStatus: (payload) => {
        const status = parseStatus(payload);
        if (status !== undefined) {
          if (status.reason && status.codebertscore !== this.status?.codebertscore) {
            this.output.info(`CodeBERTScore: ${status.codebertscore} (${status.reason})`);
          }
          this.setStatus(status);
        }
      },
    };
    const client = createClient({ python: found.candidate.command, args, env }, this.output, hooks);
    this.client = client;
    client.onDidChangeState(({ newState }) => {
      if (this.client !== client) {
        return; // stopped on purpose (restart, deactivate): stop() said so already
      }
      if (newState === State.Running) {
        this.hooks.serverRunning();
      } else if (newState === State.Stopped || newState === State.StartFailed) {
        this.hooks.serverStopped("it exited (VS Code restarts it a few times; see the log)");
      }
    });
    try {
      await client.start();
      const told = statusFromInitialize(client.initializeResult);
      if (told !== undefined && this.status === undefined) {
        this.setStatus(told);
      }
      await vscode.commands.executeCommand("setContext", "refscore.active", true);
    } catch (error) {
      const message = `RefScore's server did not start: ${String(error)}. See the RefScore output channel.`;
      this.output.error(message);
      this.hooks.serverStopped("it did not start (see the log)");
      void vscode.window.showErrorMessage(message);
    }
  }

  async stop(): Promise<void> {
    await this.starting;
    const client = this.client;
    this.client = undefined;
    this.launch = undefined;
    this.setStatus(undefined);
    if (client !== undefined) {
      this.hooks.serverStopped("it was stopped");
    }
    void Promise.resolve(vscode.commands.executeCommand("setContext", "refscore.active", false)).catch(() => undefined);
    if (client !== undefined) {
      try {
        await client.stop(5000);
      } catch (error) {
        this.output.warn(`Stopping the server: ${String(error)}`);
      }
    }
  }

  /** Stops and starts again, finding the interpreter anew (the setting may have changed). */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** The running client, or a message saying there is none. */
  private need(): LanguageClient {
    if (this.client === undefined || !this.client.isRunning()) {
      throw new Error("RefScore's server is not running (see RefScore: Show Server Log).");
    }
    return this.client;
  }

  executeCommand(command: string, args: unknown[]): Promise<unknown> {
    return this.need().sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  request(method: string, params: unknown): Promise<unknown> {
    return this.need().sendRequest(method, params);
  }

  dispose(): void {
    void this.stop().catch(() => undefined);
  }
}
