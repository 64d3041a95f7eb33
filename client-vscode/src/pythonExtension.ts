/** The Python extension's active interpreter, when that extension is installed (no dependency on it). */

import * as vscode from "vscode";

const PYTHON_EXTENSION = "ms-python.python";

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
  };
}

/** The interpreter's path, or undefined (no extension, no interpreter chosen, an API we do not know). */
export async function pythonExtensionInterpreter(resource: vscode.Uri | undefined, log: (line: string) => void): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION);
  if (extension === undefined) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const active = api?.environments?.getActiveEnvironmentPath(resource);
    if (active?.path) {
      const resolved = await api.environments?.resolveEnvironment(active);
      return resolved?.executable?.uri?.fsPath ?? active.path;
    }
    return api?.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
  } catch (error) {
    log(`The Python extension did not give an interpreter: ${String(error)}`);
    return undefined;
  }
}
