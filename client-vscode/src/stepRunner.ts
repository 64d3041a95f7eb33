/** Runs one set-up step as a child process: whole lines to the log, progress from pip's, one line on failure. No vscode import. */

import { spawn } from "node:child_process";
import { failureReason, progressLine, type Step } from "./setupPlan";

export interface StepIo {
  log(line: string): void;
  report(progress: string): void;
  /** Calls back once when the user cancels; returns a function that stops listening. */
  onCancel(kill: () => void): () => void;
  isCancelled(): boolean;
}

/** Why a step failed, in one line (`cancelled` when the user stopped it). */
export class StepFailed extends Error {
  override name = "StepFailed";
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

/** The step's environment: ours, without what would make the interpreter load other libraries. */
export function stepEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, PIP_NO_INPUT: "1" };
  delete env.PYTHONPATH;
  delete env.PYTHONHOME;
  return env;
}

export function runStep(step: Step, io: StepIo, env: NodeJS.ProcessEnv = stepEnv(process.env)): Promise<void> {
  return new Promise((resolve, reject) => {
    io.log(`${step.command} ${step.args.join(" ")}`);
    const child = spawn(step.command, step.args, { env, windowsHide: true });
    const lines: string[] = [];
    const line = (text: string) => {
      if (!text.trim()) {
        return;
      }
      lines.push(text);
      io.log(text);
      const shown = progressLine(text);
      if (shown) {
        io.report(shown);
      }
    };
    const out = lineReader(line);
    const err = lineReader(line);
    child.stdout.on("data", out.take);
    child.stderr.on("data", err.take);
    const stopListening = io.onCancel(() => child.kill());
    child.on("error", (error) => {
      stopListening();
      reject(new StepFailed(`${step.title} failed: ${error.message}`));
    });
    child.on("close", (code) => {
      stopListening();
      out.flush();
      err.flush();
      if (io.isCancelled()) {
        reject(new StepFailed("cancelled"));
      } else if (code === 0) {
        resolve();
      } else {
        reject(new StepFailed(failureReason(lines, step, code)));
      }
    });
  });
}
