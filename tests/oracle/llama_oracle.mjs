#!/usr/bin/env node
// llama.cpp as an independent oracle for Strata's forward pass.
//
// Given a GGUF file and a list of prompts (token ids), runs llama.cpp (the build bundled in
// node-llama-cpp, CPU only) and prints, per prompt, the same JSON shape as
// `strata generate --json --prompt-logprobs --top-logprobs K --temperature 0`:
//
//   {"results":[{"prompt_ids":[..], "output_ids":[..],
//                "logprobs":        [[[id, logprob] x K] per generated token],
//                "prompt_logprobs": [[[id, logprob] x K] per prompt position i: the
//                                    distribution of token i+1 given tokens 0..i]}]}
//
// How the distribution is obtained (README.md, "How llama.cpp's logprobs are obtained"):
// node-llama-cpp can hand back the softmax of the whole vocabulary per position, but building
// that 150k-entry array costs ~150 ms per position, so we take two cheaper passes over the
// same tokens instead, both through `controlledEvaluate(..., {generateNext: ...})`:
//   A. `{probabilities: true, options: {temperature: 1, topK: K, topP: 1}}`: llama.cpp's sampler
//      chain is top_k(K) -> top_p(1.0: returns at once) -> temp(1.0: logit /= 1, exact) -> dist;
//      none of them changes a logit, so the addon returns softmax over the exact top-K raw
//      logits: q_i = exp(l_i - l_max) / sum_topK. log(q_i / q_max) = l_i - l_max exactly (to
//      float rounding of one expf, ~1e-7). The argmax of pass A is the greedy token.
//   B. `{confidence: true}` with default options = temperature 0: the chain is only llama.cpp's
//      greedy sampler (argmax; no top-k/top-p/min-p, no penalties, no bias; logits untouched) and
//      the addon returns p_max = 1 / sum_j exp(l_j - l_max) over the WHOLE vocabulary.
//   logprob_i = log(p_max) + log(q_i / q_max) = l_i - logsumexp_j(l_j), the raw-logit
//   log-softmax at temperature 1. Its only error beyond llama.cpp's logits is the float32 sum
//   inside the addon for pass B (150k terms): up to ~4e-5 absolute on every logprob, measured
//   against a float64 numpy forward pass (README.md), where the slow full-vocabulary mode
//   (`fullVocab`, softmax renormalised in double) is within 1.1e-6.
//
// Sliding-window attention: the llama.cpp in node-llama-cpp 3.21.1 ignores
// `llama.attention.sliding_window` for arch "llama" (see README.md). With
// `slidingWindow: W` we emulate it exactly: tokens are decoded one at a time and, before the
// token at position p is decoded, the KV cells of positions < p - W + 1 are removed (positions
// of the remaining cells are NOT shifted). Each token's K/V are computed once, when the token
// is decoded, under the window in force then, which is exactly causal sliding-window attention
// with window W (position p attends to positions p-W+1..p, as in HF Mistral).
//
// Usage: node llama_oracle.mjs --model M.gguf --prompts P.json [--max-tokens 32] [--top 5]
//          [--sliding-window W] [--threads N] [--out OUT.json]
//          [--full-vocab 1]

import fs from 'node:fs';
import { getLlama, LlamaLogLevel } from 'node-llama-cpp';

let llamaPromise = null;

// One llama.cpp instance per process (loading the backend is the slow part).
export function getOracleLlama() {
  if (!llamaPromise) {
    llamaPromise = getLlama({
      gpu: false,
      build: 'never',
      logLevel: LlamaLogLevel.error,
      progressLogs: false,
      skipDownload: true,
    });
  }
  return llamaPromise;
}

// Top-k of node-llama-cpp's full-vocabulary probability map (token -> float32 softmax
// probability), renormalised in double. Slow (~150 ms per position); used by `fullVocab`
// mode, which exists to check the fast two-pass method.
export function topLogprobsFromMap(probMap, k) {
  let sum = 0;
  const all = [];
  for (const [id, p] of probMap) {
    sum += p;
    all.push([id, p]);
  }
  all.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const logSum = Math.log(sum);
  return all.slice(0, k).map(([id, p]) => [id, Math.log(p) - logSum]);
}

const passA = (k) => ({
  generateNext: { probabilities: true, options: { temperature: 1, topK: k, topP: 1, minP: 0, seed: 1 } },
});
const PASS_B = { generateNext: { confidence: true } };
const FULL = { generateNext: { probabilities: true } };

// Pass-A result -> {argmax, rel: [[id, l_i - l_max]...]} sorted by logit desc, id asc.
function relativeTop(probMap, k) {
  const entries = [...probMap].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  if (entries.length !== k) throw new Error(`top-k pass returned ${entries.length} candidates, not ${k}`);
  const qMax = entries[0][1];
  return { argmax: entries[0][0], rel: entries.map(([id, q]) => [id, Math.log(q / qMax)]) };
}

// Evaluates `tokens` at the next positions of `seq`, one batch, or one token at a time with KV
// cells outside the window dropped when `window` > 0. `startPos` is the position of tokens[0].
async function evaluate(seq, tokens, startPos, window, options) {
  if (window <= 0) return seq.controlledEvaluate(tokens.map((t) => [t, options]));
  const out = [];
  for (let i = 0; i < tokens.length; i++) {
    const drop = startPos + i - window + 1;
    if (drop > 0) {
      // llama_memory_seq_rm(seq, 0, drop) without the position shift that the public
      // eraseContextTokenRanges() performs: the remaining cells keep their absolute positions.
      const ok = seq._context._ctx.removeTokenCellsFromSequence(seq._sequenceId, 0, drop);
      if (!ok) throw new Error(`llama_memory_seq_rm(0, ${drop}) failed`);
    }
    out.push((await seq.controlledEvaluate([[tokens[i], options]]))[0]);
  }
  return out;
}

function need(x, what, i) {
  if (x == null) throw new Error(`llama.cpp returned no ${what} at input index ${i}`);
  return x;
}

// One prompt: teacher-forced distributions at every prompt position, then a greedy
// continuation of maxTokens tokens (EOS is an ordinary token: it never stops early).
async function runPrompt(seq, prompt, maxTokens, k, window, fullVocab) {
  await seq.clearHistory();
  if (seq.nextTokenIndex !== 0) throw new Error('sequence not empty after clearHistory');
  if (fullVocab) {
    const dists = [];
    const push = (out) => out.forEach((o, i) =>
      dists.push(topLogprobsFromMap(need(o?.next?.probabilities, 'probabilities', i), k)));
    push(await evaluate(seq, prompt, 0, window, FULL));
    const outputIds = [dists[dists.length - 1][0][0]];
    while (outputIds.length < maxTokens) {
      push(await evaluate(seq, [outputIds.at(-1)], prompt.length + outputIds.length - 1, window, FULL));
      outputIds.push(dists[dists.length - 1][0][0]);
    }
    return { outputIds, dists };
  }
  // Pass A: relative top-k logits, and the greedy continuation.
  const rel = (await evaluate(seq, prompt, 0, window, passA(k)))
    .map((o, i) => relativeTop(need(o?.next?.probabilities, 'probabilities', i), k));
  const outputIds = [rel.at(-1).argmax];
  while (outputIds.length < maxTokens) {
    const o = await evaluate(seq, [outputIds.at(-1)], prompt.length + outputIds.length - 1, window, passA(k));
    rel.push(relativeTop(need(o[0]?.next?.probabilities, 'probabilities', 0), k));
    outputIds.push(rel.at(-1).argmax);
  }
  // Pass B: full-vocabulary normaliser at the same positions (same tokens, same order).
  await seq.clearHistory();
  const all = prompt.concat(outputIds.slice(0, -1));
  const conf = (await evaluate(seq, all, 0, window, PASS_B))
    .map((o, i) => need(o?.next?.confidence, 'confidence', i));
  const dists = rel.map((r, i) => {
    const logPMax = Math.log(conf[i]);
    return r.rel.map(([id, d]) => [id, logPMax + d]);
  });
  return { outputIds, dists };
}

// Runs every prompt through llama.cpp. Returns {results: [...]} in strata generate's shape.
// `fullVocab` takes the slow path (full-vocabulary probabilities), used to check the fast one.
export async function runOracle({
  model: modelPath, prompts, maxTokens = 32, top = 5, slidingWindow = 0, threads = 0,
  fullVocab = false,
}) {
  if (maxTokens < 1) throw new Error('maxTokens must be >= 1');
  const llama = await getOracleLlama();
  const model = await llama.loadModel({ modelPath, gpuLayers: 0, useMmap: true });
  const maxLen = Math.max(...prompts.map((p) => p.length)) + maxTokens + 8;
  const contextSize = Math.ceil(maxLen / 256) * 256;
  const context = await model.createContext({
    contextSize,
    batchSize: contextSize, // >= prompt length: a prompt is one batch and one ubatch
    sequences: 1,
    flashAttention: false,
    experimentalKvCacheKeyType: 'F32',
    experimentalKvCacheValueType: 'F32',
    ...(threads > 0 ? { threads } : {}),
  });
  const seq = context.getSequence();
  const results = [];
  try {
    for (const prompt of prompts) {
      const { outputIds, dists } = await runPrompt(seq, prompt, maxTokens, top, slidingWindow, fullVocab);
      results.push({
        prompt_ids: prompt,
        output_ids: outputIds,
        logprobs: dists.slice(prompt.length - 1, prompt.length - 1 + maxTokens),
        prompt_logprobs: dists.slice(0, prompt.length),
      });
    }
  } finally {
    await context.dispose();
    await model.dispose();
  }
  return { results };
}

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith('--')) throw new Error(`unexpected argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
    i++;
  }
  return args;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (!a.model || !a.prompts) {
    console.error('usage: llama_oracle.mjs --model M.gguf --prompts P.json [--max-tokens N] ' +
                  '[--top K] [--sliding-window W] [--threads N] [--out F]');
    process.exit(2);
  }
  const res = await runOracle({
    model: a.model,
    prompts: JSON.parse(fs.readFileSync(a.prompts, 'utf8')),
    maxTokens: Number(a['max-tokens'] ?? 32),
    top: Number(a.top ?? 5),
    slidingWindow: Number(a['sliding-window'] ?? 0),
    threads: Number(a.threads ?? 0),
    fullVocab: a['full-vocab'] === '1',
  });
  const text = JSON.stringify(res);
  if (a.out) fs.writeFileSync(a.out, text);
  else process.stdout.write(text + '\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
