// Runs inside the sandbox under node (built-in modules only): loads /box/program.js in a `vm`
// context (its top-level code runs, its output is dropped), calls its functions with each input
// of /box/calls.json and writes one JSON line per call to standard output, the same protocol as
// harness/python_calls.py:
//
//   {"load": "ok"} or {"load": "error", "e": type, "m": message, "line": n}   (first line)
//   {"i": n, "v": value}             returned (a promise is awaited)
//   {"i": n, "e": type, "m": text}   threw
//   {"i": n, "timeout": true}        ran past its time
//   {"i": n, "missing": true}        no such function
//   {"i": n, "bad": message}         the arguments themselves could not be built
//
// plus "mut" (the arguments after the call, when the call changed them), "out" (what it printed
// with console.log / process.stdout.write) and "s" (seconds). A value is tagged JSON (`encode`).
// A function is found as a property of module.exports, as module.exports itself (by its name),
// or as a top-level binding of the program (function, var, let, const, class).
'use strict';

const fs = require('fs');
const vm = require('vm');
const util = require('util');
const crypto = require('crypto');

const PRINT_CAP = 4096;
const NODE_CAP = 20000;
const TIMEOUTS_PER_FUNCTION = 2;
const PROGRAM = '/box/program.js';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

class Overflow extends Error {}

class ProgramExit extends Error {
  constructor(code) {
    super(`process.exit(${code === undefined ? '' : code})`);
    this.code = code;
  }
}

function write(text) {
  const buffer = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset += fs.writeSync(1, buffer, offset, buffer.length - offset);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
    }
  }
}

function emit(record) {
  write(JSON.stringify(record) + '\n');
}

function tagOf(value) {
  return Object.prototype.toString.call(value).slice(8, -1);
}

function isPlainObject(value) {
  const proto = Object.getPrototypeOf(value);
  return proto === null || (Object.getPrototypeOf(proto) === null && tagOf(value) === 'Object');
}

function typeName(value) {
  try {
    const ctor = value.constructor;
    if (ctor && typeof ctor.name === 'string' && ctor.name) return ctor.name;
  } catch (error) {
    // a constructor getter that throws
  }
  return tagOf(value);
}

function byJson(a, b) {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

// A value as tagged JSON that compares on the host the way the Python harness's values do:
// ["i", text] (integers, BigInt), ["f", x or "nan"/"inf"/"-inf"], ["b", v], ["s", v], ["n"]
// (null), ["u"] (undefined), ["l", items] (arrays, typed arrays), ["d", [[key, value]...]]
// (plain objects by key, Maps), ["S", items] (Sets, in a canonical order), ["g", items]
// (iterators, up to 1,000 items), ["h", digest] (too big to spell out), ["o", type, text].
function encode(value, budget, depth) {
  budget.left -= 1;
  if (budget.left < 0 || depth > 60) throw new Overflow();
  switch (typeof value) {
    case 'undefined':
      return ['u'];
    case 'boolean':
      return ['b', value];
    case 'number':
      if (Number.isNaN(value)) return ['f', 'nan'];
      if (!Number.isFinite(value)) return ['f', value > 0 ? 'inf' : '-inf'];
      if (Number.isInteger(value)) return ['i', BigInt(value).toString()];
      return ['f', value];
    case 'bigint':
      return ['i', value.toString()];
    case 'string':
      return ['s', value];
    case 'symbol':
      return ['o', 'symbol', value.toString()];
    case 'function':
      return ['o', 'function', `[Function: ${value.name || '(anonymous)'}]`];
    default:
      break;
  }
  if (value === null) return ['n'];
  if (Array.isArray(value)) {
    const items = [];
    for (let i = 0; i < value.length; i += 1) items.push(encode(value[i], budget, depth + 1));
    return ['l', items];
  }
  const tag = tagOf(value);
  if (ArrayBuffer.isView(value) && tag !== 'DataView') {
    return ['l', Array.from(value, (item) => encode(item, budget, depth + 1))];
  }
  if (tag === 'Map') {
    const items = [];
    for (const [key, item] of value) items.push([encode(key, budget, depth + 1), encode(item, budget, depth + 1)]);
    items.sort((a, b) => byJson(a[0], b[0]));
    return ['d', items];
  }
  if (tag === 'Set') {
    const items = [];
    for (const item of value) items.push(encode(item, budget, depth + 1));
    items.sort(byJson);
    return ['S', items];
  }
  if (tag === 'Date') return ['o', 'Date', Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()];
  if (tag === 'RegExp') return ['o', 'RegExp', String(value)];
  if (tag === 'Error' || value instanceof Error) {
    return ['o', typeName(value), `${value.name}: ${value.message}`.slice(0, 500)];
  }
  if (tag === 'Promise') return ['o', 'Promise', 'Promise { <pending> }'];
  if (tag === 'Number' || tag === 'String' || tag === 'Boolean' || tag === 'BigInt') {
    return encode(value.valueOf(), budget, depth);
  }
  if (tag === 'Generator' || (typeof value.next === 'function' && typeof value[Symbol.iterator] === 'function')) {
    const items = [];
    for (const item of value) {
      items.push(encode(item, budget, depth + 1));
      if (items.length >= 1000) break;
    }
    return ['g', items];
  }
  if (isPlainObject(value)) {
    const items = Object.keys(value).map((key) => [['s', key], encode(value[key], budget, depth + 1)]);
    items.sort((a, b) => (a[0][1] < b[0][1] ? -1 : a[0][1] > b[0][1] ? 1 : 0));
    return ['d', items];
  }
  budget.left -= 50;
  const text = util.inspect(value, { depth: 6, sorted: true, breakLength: Infinity, compact: true,
    maxArrayLength: 200, maxStringLength: 2000 });
  return ['o', typeName(value), text.slice(0, 500)];
}

function encodeSafely(value) {
  try {
    return encode(value, { left: NODE_CAP }, 0);
  } catch (error) {
    if (error instanceof Overflow || (error && error.name === 'RangeError')) {
      try {
        const text = util.inspect(value, { depth: 8, sorted: true, maxArrayLength: 100000, breakLength: Infinity });
        return ['h', crypto.createHash('sha256').update(text).digest('hex')];
      } catch (inner) {
        return ['o', typeName(value), '?'];
      }
    }
    return ['o', typeName(value), `unencodable: ${error && error.name}`];
  }
}

// A seeded Math.random (mulberry32), reset before each call: the same "random" numbers for the
// reference and the candidate.
function seeded(seed) {
  let state = seed >>> 0;
  return function random() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function describeError(error) {
  if (error instanceof ProgramExit) return { e: 'ProcessExit', m: error.message };
  if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
    let name = typeName(error);
    if (name === 'Object' || name === 'Error') name = typeof error.name === 'string' && error.name ? error.name : name;
    let message = '';
    try {
      message = typeof error.message === 'string' ? error.message : String(error);
    } catch (inner) {
      message = '';
    }
    return { e: name, m: message.slice(0, 200) };
  }
  return { e: typeof error, m: String(error).slice(0, 200) };
}

function lineOf(error) {
  const first = String((error && error.stack) || '').split('\n')[0];
  const match = /^\/box\/program\.js:(\d+)$/.exec(first);
  return match ? Number(match[1]) : null;
}

function isTimeout(error) {
  return error !== null && typeof error === 'object' && error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
}


async function main() {
  const spec = JSON.parse(fs.readFileSync('/box/calls.json', 'utf8'));
  const source = fs.readFileSync(PROGRAM, 'utf8');
  const limitMs = Math.max(1, Math.round(Number(spec.call_seconds || 1) * 1000));
  const loadMs = Math.max(1, Math.round(Number(spec.load_seconds || 2) * 1000));

  let printed = [];
  let printedLength = 0;
  const print = (text) => {
    if (printedLength < PRINT_CAP) {
      printed.push(text);
      printedLength += text.length;
    }
    return true;
  };
  const log = (...args) => print(util.format(...args) + '\n');
  const quiet = () => undefined;
  const fakeConsole = {
    log, info: log, debug: log, dir: (value) => print(util.inspect(value) + '\n'), table: log,
    error: quiet, warn: quiet, trace: quiet, assert: quiet, group: quiet, groupEnd: quiet,
    groupCollapsed: quiet, time: quiet, timeEnd: quiet, timeLog: quiet, count: quiet, countReset: quiet,
  };
  const fakeProcess = Object.create(process, {
    exit: { value: (code) => { throw new ProgramExit(code); } },
    stdout: { value: { write: (text) => print(String(text)), isTTY: false, columns: 80 } },
    stderr: { value: { write: () => true, isTTY: false, columns: 80 } },
    argv: { value: ['node', PROGRAM] },
  });
  const programModule = { exports: {}, id: '.', filename: PROGRAM, loaded: false };
  const globals = {
    console: fakeConsole, process: fakeProcess, require, module: programModule, exports: programModule.exports,
    __filename: PROGRAM, __dirname: '/box',
  };
  for (const name of ['Buffer', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate',
    'clearImmediate', 'queueMicrotask', 'structuredClone', 'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams',
    'atob', 'btoa', 'performance', 'fetch', 'AbortController']) {
    if (typeof globalThis[name] !== 'undefined') globals[name] = globalThis[name];
  }
  const context = vm.createContext(globals);
  const contextMath = vm.runInContext('Math', context);
  contextMath.random = seeded(0);

  const bound = (name) => {
    if (!IDENTIFIER.test(name)) return undefined;
    try {
      return vm.runInContext(`typeof ${name} === 'function' ? ${name} : undefined`, context, { timeout: limitMs });
    } catch (error) {
      return undefined;
    }
  };
  const builtins = new Map();
  for (const call of spec.calls) {
    if (!builtins.has(call.f)) builtins.set(call.f, bound(call.f));
  }

  let script;
  try {
    script = new vm.Script(source, { filename: PROGRAM });
  } catch (error) {
    const described = describeError(error);
    emit({ load: 'error', e: described.e, m: described.m, line: lineOf(error) });
    return;
  }
  try {
    script.runInContext(context, { timeout: loadMs });
  } catch (error) {
    if (isTimeout(error)) {
      emit({ load: 'error', e: 'Timeout', m: 'loading the program ran past its time' });
      return;
    }
    if (!(error instanceof ProgramExit && (error.code === undefined || error.code === 0))) {
      const described = describeError(error);
      emit({ load: 'error', e: described.e, m: described.m, line: null });
      return;
    }
  }
  programModule.loaded = true;
  emit({ load: 'ok' });

  const lookup = (name) => {
    const exported = programModule.exports;
    if (exported !== null && (typeof exported === 'object' || typeof exported === 'function')
        && Object.prototype.hasOwnProperty.call(exported, name) && typeof exported[name] === 'function') {
      return exported[name];
    }
    if (typeof exported === 'function' && exported.name === name) return exported;
    const found = bound(name);
    // a built-in of the same name (escape, toString, parseInt) is not the program's function
    return found !== undefined && found === builtins.get(name) ? undefined : found;
  };
  const invoke = new vm.Script('__refscore_call.f.apply(undefined, __refscore_call.a)', { filename: 'refscore-call' });
  const timeouts = new Map();

  for (let index = 0; index < spec.calls.length; index += 1) {
    const call = spec.calls[index];
    if ((timeouts.get(call.f) || 0) >= TIMEOUTS_PER_FUNCTION) {
      emit({ i: index, timeout: true, skipped: true });
      continue;
    }
    const fn = lookup(call.f);
    if (typeof fn !== 'function') {
      emit({ i: index, missing: true });
      continue;
    }
    let args;
    try {
      args = vm.runInContext(`[${call.a}\n]`, context, { timeout: limitMs, filename: 'refscore-input' });
    } catch (error) {
      const described = describeError(error);
      emit({ i: index, bad: `${described.e}: ${described.m}` });
      continue;
    }
    let record = { i: index };
    const before = encodeSafely(args);
    printed = [];
    printedLength = 0;
    contextMath.random = seeded(0);
    context.__refscore_call = { f: fn, a: args };
    const started = process.hrtime.bigint();
    try {
      let value = invoke.runInContext(context, { timeout: limitMs });
      if (value !== null && typeof value === 'object' && tagOf(value) === 'Promise') {
        const late = Symbol('timeout');
        const left = Math.max(1, limitMs - Number(process.hrtime.bigint() - started) / 1e6);
        let timer;
        const expiry = new Promise((resolve) => { timer = setTimeout(() => resolve(late), left); });
        try {
          value = await Promise.race([value, expiry]);
        } finally {
          clearTimeout(timer);
        }
        if (value === late) {
          const error = new Error('timeout');
          error.code = 'ERR_SCRIPT_EXECUTION_TIMEOUT';
          throw error;
        }
      }
      record.v = encodeSafely(value);
    } catch (error) {
      if (isTimeout(error)) {
        record = { i: index, timeout: true };
        timeouts.set(call.f, (timeouts.get(call.f) || 0) + 1);
      } else {
        Object.assign(record, describeError(error));
      }
    }
    record.s = Math.round(Number(process.hrtime.bigint() - started) / 1e3) / 1e6;
    delete context.__refscore_call;
    const after = encodeSafely(args);
    if (JSON.stringify(after) !== JSON.stringify(before)) record.mut = after;
    const text = printed.join('');
    if (text) record.out = text.slice(0, PRINT_CAP);
    printed = [];
    emit(record);
  }
}

// what the program left running (timers, promises) may fail later: that is not the harness's end
process.on('uncaughtException', () => undefined);
process.on('unhandledRejection', () => undefined);

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`harness failed: ${error && error.stack}\n`);
  process.exit(70);
});
