/** One running server: finds the interpreter, starts, stops and restarts the client. */

import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";
import { type ClientHooks, createClient } from "./client";
import { candidates, failureMessage, findInterpreter, probeWith } from "./interpreter";
import { pythonExtensionInterpreter } from "./pythonExtension";

const PROBE_TIMEOUT_MS = 60_000;

export class Session implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly hooks: ClientHooks,
  ) {}

  get running(): boolean {
    return this.client?.isRunning() ?? false;
  }

  /** Starts the server unless it runs or is starting. */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const config = vscode.workspace.getConfiguration("refscore", resource);
    const fromPython = config.get<string>("interpreter")?.trim() ? undefined : await pythonExtensionInterpreter(resource, (l) => this.output.info(l));
    const list = candidates(config.get<string>("interpreter"), fromPython);
    const { found, failures } = await findInterpreter(list, probeWith(PROBE_TIMEOUT_MS));
    for (const failure of failures) {
      this.output.warn(`${failure.candidate.command} (${failure.candidate.source}): ${failure.reason}`);
    }
    if (found === undefined) {
      const message = failureMessage(failures);
      this.output.error(message);
      void vscode.window.showErrorMessage(message, "Open Settings", "Show Log").then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "refscore.interpreter");
        } else if (choice === "Show Log") {
          this.output.show();
        }
      });
      return;
    }
    this.output.info(`Starting ${found.version} with ${found.candidate.command} (${found.candidate.source})`);
    const args = config.get<string[]>("server.args") ?? [];
    this.client = createClient(found.candidate.command, args, this.output, this.hooks);
    try {
      await this.client.start();
      await vscode.commands.executeCommand("setContext", "refscore.active", true);
    } catch (error) {
      const message = `RefScore's server did not start: ${String(error)}. See the RefScore output channel.`;
      this.output.error(message);
      void vscode.window.showErrorMessage(message);
    }
  }

  async stop(): Promise<void> {
    await this.starting;
    const client = this.client;
    this.client = undefined;
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
