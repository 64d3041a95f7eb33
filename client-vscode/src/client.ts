/** The language client: how `refscore serve` is started and what the client opts into. */

import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";
import { DOCUMENT_STATUS, MISSING, TOKEN_SCORES } from "./protocol";
import { documentSelector } from "./selector";
import { STATUS } from "./serverStatus";

export interface ClientHooks {
  /** After VS Code has the file's diagnostics. */
  diagnostics(uri: vscode.Uri, diagnostics: readonly vscode.Diagnostic[]): void;
  tokenScores(payload: unknown): void;
  /** A `refscore/documentStatus` notification (a file with no reference). */
  documentStatus(payload: unknown): void;
  /** A code lens was clicked (the server's lens command); `result` is the server's answer. */
  missingShown(args: unknown[], result: unknown): void;
  /** What the server can score: its initialize result's, then each `refscore/status`. */
  serverStatus(payload: unknown): void;
}

export interface ServerLaunch {
  python: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

export function createClient(launch: ServerLaunch, output: vscode.LogOutputChannel, hooks: ClientHooks): LanguageClient {
  const serverOptions: ServerOptions = {
    command: launch.python,
    args: ["-m", "refscore", "serve", ...launch.args],
    options: { env: launch.env },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(),
    outputChannel: output,
    // behaviour runs code only in a trusted workspace (granting trust restarts the server)
    initializationOptions: {
      tokenScores: true,
      workspaceTrusted: vscode.workspace.isTrusted,
      // code actions may name these (compare.ts runs them)
      clientCommands: ["refscore.showReferenceSideBySide", "refscore.compareWithReference"],
    },
    synchronize: { configurationSection: "refscore" },
    middleware: {
      handleDiagnostics(uri, diagnostics, next) {
        next(uri, diagnostics);
        hooks.diagnostics(uri, diagnostics);
      },
      // the server answers pulls instead of pushing to a client that pulls (docs/editor.md)
      async provideDiagnostics(document, previousResultId, token, next) {
        const report = await next(document, previousResultId, token);
        if (report && "items" in report) {
          hooks.diagnostics(document instanceof vscode.Uri ? document : document.uri, report.items);
        }
        return report;
      },
      async executeCommand(command, args, next) {
        const result = await next(command, args);
        if (command === MISSING) {
          hooks.missingShown(args, result);
        }
        return result;
      },
    },
  };
  const client = new LanguageClient("refscore", "RefScore", serverOptions, clientOptions);
  client.onNotification(TOKEN_SCORES, (payload: unknown) => hooks.tokenScores(payload));
  client.onNotification(DOCUMENT_STATUS, (payload: unknown) => hooks.documentStatus(payload));
  client.onNotification(STATUS, (payload: unknown) => hooks.serverStatus(payload));
  return client;
}
