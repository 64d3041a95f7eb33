/** Runs `refscore setup` as a child process: its JSON-line events to the caller, every line to the log, one line on failure. No vscode import. */

import { spawn } from "node:child_process";
import { parseEvent, type SetupEvent } from "./setupPlan";

export interface RunIo {
  log(line: string): void;
  event(event: SetupEvent): void;
  /** Calls back once when the user cancels; returns a function that stops listening. */
  onCancel(kill: () => void): () => void;
  isCancelled(): boolean;
}

/** Why the set-up failed, in one line (`cancelled` when the user stopped it). */
export class SetupFailed extends Error {
  override name = "SetupFailed";
}

/** Splits a stream whose chunks may end anywhere into whole lines. */
export function lineReader(line: (text: string) => void): { take(chunk: Buffer | string): void; flush(): void } {
  let rest = "";
  return {
    take(chunk) {
      const parts = (rest + chunk.toString()).split(/\r?\n/);
      rest = parts.pop() ?? "";
      parts.forEach(line);
    },
    flush() {
      if (rest) {
        line(rest);
      }
      rest = "";
    },
  };
}

/** Resolves with the `done` event; rejects with SetupFailed (the command's own reason when it gave one). */
export function runSetup(command: string, args: readonly string[], env: NodeJS.ProcessEnv, io: RunIo): Promise<SetupEvent> {
  return new Promise((resolve, reject) => {
    io.log(`${command} ${args.join(" ")}`);
    const child = spawn(command, args, { env, windowsHide: true });
    let done: SetupEvent | undefined;
    let failed: string | undefined;
    const tail: string[] = [];
    const out = lineReader((text) => {
      const event = parseEvent(text);
      if (event === undefined) {
        if (text.trim()) {
          tail.push(text);
          io.log(text);
        }
        return;
      }
      io.log(text);
      if (event.event === "done") {
        done = event;
      } else if (event.event === "failed") {
        failed = event.reason + (event.log ? ` (log: ${event.log})` : "");
      }
      io.event(event);
    });
    const err = lineReader((text) => {
      if (text.trim()) {
        tail.push(text);
        io.log(text);
      }
    });
    child.stdout.on("data", out.take);
    child.stderr.on("data", err.take);
    const stopListening = io.onCancel(() => child.kill("SIGTERM"));
    child.on("error", (error) => {
      stopListening();
      reject(new SetupFailed(`${command} could not run: ${error.message}`));
    });
    child.on("close", (code) => {
      stopListening();
      out.flush();
      err.flush();
      if (io.isCancelled()) {
        reject(new SetupFailed("cancelled"));
      } else if (code === 0 && done !== undefined) {
        resolve(done);
      } else {
        reject(new SetupFailed(failed ?? tail[tail.length - 1]?.trim().slice(0, 300) ?? `refscore setup ended with exit status ${code}`));
      }
    });
  });
}
