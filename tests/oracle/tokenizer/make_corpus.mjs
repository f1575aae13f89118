// Generates corpus.jsonl, the tokenizer oracle corpus: one JSON string per line (so a "line" may
// hold newlines, carriage returns and control characters). Deterministic: a fixed-seed PRNG, no
// input files. Run `node make_corpus.mjs > corpus.jsonl` from this folder; the output is
// committed so the oracle and the benchmark always see the same text.

let seed = 0x5eed1234;
function rand() {  // mulberry32
  seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const lines = [];
const add = (s) => lines.push(s);

// --- English -------------------------------------------------------------------------------
const words = `the quick brown fox jumps over lazy dog I you he she it we they don't can't won't
isn't it's that's we're they've I'm you'll she'd HELLO World Tokenizer tokenization BPE merges
byte-level pre-tokenizer regex Unicode normalization server inference latency throughput cache
prefix block model weights attention transformer embedding vocabulary Hugging Face llama qwen
gemma mistral DeepSeek OpenAI GPT-OSS e-mail U.S.A. Mr. Dr. etc. naïve café résumé coöperate
façade jalapeño Zürich Straße ﬁnal ﬂow ½ ² ³ ™ © ® … — – “quoted” ‘single’ «guillemets»`.split(/\s+/);
const punct = ['.', ',', '!', '?', ';', ':', '...', '?!', ' -', ' (', ')', '"', "'", ' —'];
for (let i = 0; i < 500; i++) {
  const n = int(1, 40);
  let s = '';
  for (let k = 0; k < n; k++) {
    let w = pick(words);
    const r = rand();
    if (r < 0.1) w = w.toUpperCase();
    else if (r < 0.2) w = w[0].toUpperCase() + w.slice(1);
    s += (k && rand() < 0.95 ? ' ' : '') + w;
    if (rand() < 0.15) s += pick(punct);
  }
  if (rand() < 0.1) s = '  ' + s;
  if (rand() < 0.1) s += '   ';
  if (rand() < 0.1) s = s.replace(/ /g, '\n');
  add(s);
}
for (const c of ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'VE", "'M",
                 "'LL", "'D", "'ſ", "'x", "’s"]) {
  add(`it${c} John${c} ${c} ${c}${c} x${c}y ${c.toUpperCase()}!`);
}

// --- Other scripts ---------------------------------------------------------------------------
const scripts = {
  zh: '我们今天讨论大型语言模型的推理服务器。这个分词器必须与参考实现完全一致，包括标点符号、数字123和English混合。',
  ja: 'これはテストです。カタカナとひらがな、そして漢字を混ぜます。ｶﾀｶﾅ（半角）も試す。東京タワーは333メートル。',
  ko: '한국어 텍스트도 포함합니다. 토크나이저는 정확해야 합니다! 가나다라마바사 가 ᄒᆞᆫ',
  ar: 'مرحبا بالعالم! هذا نص عربي مع أرقام ١٢٣٤٥ و 12345، وعلامات ترقيم؟ اَلْعَرَبِيَّةُ',
  he: 'שלום עולם, זהו טקסט בעברית עם ניקוד: שָׁלוֹם.',
  hi: 'नमस्ते दुनिया! यह हिंदी पाठ है, जिसमें संयुक्ताक्षर क्ष त्र ज्ञ और अंक १२३ हैं।',
  th: 'สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่างระหว่างคำ',
  ru: 'Привет, мир! Это русский текст с ЗАГЛАВНЫМИ буквами и ёлками.',
  el: 'Γειά σου Κόσμε! Ελληνικά με τόνους: άέήίόύώ ΐΰ.',
  vi: 'Tiếng Việt có nhiều dấu: ắ ằ ẳ ẵ ặ ế ề ể ễ ệ ố ồ ổ ỗ ộ.',
  ta: 'தமிழ் ஒரு பழமையான மொழி.',
  am: 'ሰላም ልዑል! አማርኛ',
  ka: 'გამარჯობა მსოფლიო',
  hy: 'Բարեւ աշխարհ',
  bn: 'বাংলা ভাষা সুন্দর।',
  my: 'မြန်မာဘာသာ',
  km: 'ភាសាខ្មែរ',
};
const keys = Object.keys(scripts);
for (const k of keys) {
  add(scripts[k]);
  add(scripts[k].normalize('NFD'));
  add(scripts[k].normalize('NFKC'));
}
for (let i = 0; i < 350; i++) {
  const chars = [...pick(Object.values(scripts))];
  const start = int(0, chars.length - 1);
  let s = chars.slice(start, start + int(1, 60)).join('');
  if (rand() < 0.3) s += ' ' + pick(words) + ' ' + [...pick(Object.values(scripts))].slice(0, 10).join('');
  if (rand() < 0.2) s = s.normalize('NFD');
  add(s);
}

// --- Emoji ------------------------------------------------------------------------------------
const emoji = ['😀', '👍', '👍🏽', '👨‍👩‍👧‍👦', '👩🏾‍💻', '🏳️‍🌈', '🏴‍☠️', '🇺🇸', '🇯🇵', '🇩🇪', '1️⃣', '#️⃣',
  '❤️', '❤', '🫶', '🧑‍🤝‍🧑', '👁️‍🗨️', '🐈‍⬛', '😶‍🌫️', '🙂‍↔️', '🫠', '🪿', '©️', '🏴󠁧󠁢󠁳󠁣󠁴󠁿'];
for (let i = 0; i < 200; i++) {
  let s = '';
  const n = int(1, 20);
  for (let k = 0; k < n; k++) {
    s += rand() < 0.6 ? pick(emoji) : (rand() < 0.5 ? ' ' : pick(words) + ' ');
  }
  add(s);
}

// --- Code -------------------------------------------------------------------------------------
const code = [
  'def fib(n: int) -> int:\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n',
  'class Foo:\n\tdef __init__(self):\n\t\tself.x = {"a": [1, 2, 3], \'b\': None}\n',
  '#include <vector>\nint main() {\n  std::vector<int> v{1, 2, 3};\n  for (auto& x : v) x *= 2;\n  return 0;\n}\n',
  'const f = async (a, b) => { await fetch(`/api/${a}?b=${b}`); return a ?? b; };',
  'fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * x).collect();\n    println!("{:?}", v);\n}',
  'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hello, 世界")\n}\n',
  'SELECT id, name FROM users WHERE created_at >= \'2024-01-01\' AND email LIKE \'%@example.com\';',
  '<!DOCTYPE html>\n<html><head><title>Test</title></head><body><div class="x">&nbsp;&lt;p&gt;</div></body></html>',
  '{"model": "qwen3", "messages": [{"role": "user", "content": "hi\\n"}], "temperature": 0.7}',
  '#!/bin/bash\nset -euo pipefail\nfor f in *.txt; do echo "$f" | tr a-z A-Z; done\n',
  '    x = [i**2 for i in range(100) if i % 3 == 0]  # comment\r\n    y = x[::-1]\r\n',
  '\\begin{equation} E = mc^2 \\quad \\int_0^\\infty e^{-x^2} dx = \\frac{\\sqrt{\\pi}}{2} \\end{equation}',
  'a+=1;b-=2;c*=3;d/=4;e%=5;f<<=6;g>>=7;h&=8;i|=9;j^=10;k&&l||!m;n!==o;p===q;r=>s;t::u;',
  'https://example.com/path/to/page?query=string&x=1#fragment user@mail.example.org 192.168.0.1:8080',
];
for (const c of code) add(c);
for (let i = 0; i < 250; i++) {
  const c = pick(code);
  const ls = c.split('\n');
  const a = int(0, ls.length - 1);
  let s = ls.slice(a, a + int(1, 4)).join(pick(['\n', '\r\n', '\n\n', '\n    ', '\t']));
  if (rand() < 0.3) s = ' '.repeat(int(1, 16)) + s;
  if (rand() < 0.2) s = s.replace(/ {4}/g, '\t');
  add(s);
}

// --- Whitespace and digits --------------------------------------------------------------------
const spaces = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2003', '\u200b', '\u2028',
  '\u0085', '\u000b', '\u000c', '\r'];
for (let i = 0; i < 200; i++) {
  let s = '';
  const n = int(1, 8);
  for (let k = 0; k < n; k++) {
    s += pick(spaces).repeat(int(1, rand() < 0.2 ? 300 : 12));
    if (rand() < 0.7) s += pick(words);
  }
  add(s);
}
for (let i = 0; i < 200; i++) {
  let d = '';
  const n = rand() < 0.2 ? int(50, 400) : int(1, 30);
  for (let k = 0; k < n; k++) d += String(int(0, 9));
  const forms = [d, `${d}.${int(0, 999)}`, `-${d}`, `$${d}`, `${d}%`, `x${d}y`, `${d} ${d}`,
    d.replace(/(\d)(?=(\d{3})+$)/g, '$1,'), `١٢٣${d}٤٥٦`, `${d}²`, `０１２３${d}`, `${d}e-10`];
  add(pick(forms));
}

// --- Odd Unicode ------------------------------------------------------------------------------
const odd = ['\u0000', '\u0001', '\u001f', '\u007f', '\u0080', '\u009f', '\ufeff', '\u200d',
  '\u200c', '\u200e', '\u200f', '\u202e', '\u2066', '\ufffd', '\ufffe', '\uffff', '\ue000',
  '\u{10ffff}', '\u{1d400}', '\u{1d7d8}', 'e\u0301', 'a\u0300\u0301\u0302\u0303', '\ufe0f',
  '\u{e0041}', 'ﬁ', 'Ⅻ', '㍿', '℃', 'K', 'Å', 'ǅ', 'İ', 'ß', 'ẞ', 'ꓘ', '\u0345', '̈', 'ᄀ', 'ᅡ',
  'ᆨ', '\u{1f1e6}', '\u{2070e}', '\u{30000}', '\u0378', '\u2cef', '\u{1e900}', '\u{11f00}',
  '\u{1343f}', '\u{1b132}', '\u{1f6dc}', '\u{1fae8}', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'Ａ', 'ｱ', '\u0600', '\u06dd',
  '\u0e33', '\u0f00', '\u1100\u1161\u11a8', '\u3131', '\ud55c'];
for (let i = 0; i < 250; i++) {
  let s = '';
  const n = int(1, 25);
  for (let k = 0; k < n; k++) {
    const r = rand();
    s += r < 0.5 ? pick(odd) : r < 0.7 ? pick(words) : r < 0.85 ? ' ' : String.fromCodePoint(int(0x20, 0x2fff));
  }
  add(s);
}

// --- Special-token strings in text ------------------------------------------------------------
const specials = ['<|im_start|>', '<|im_end|>', '<|endoftext|>', '<|begin_of_text|>',
  '<|end_of_text|>', '<|eot_id|>', '<|start_header_id|>', '<|end_header_id|>', '<s>', '</s>',
  '<unk>', '<bos>', '<eos>', '<pad>', '<start_of_turn>', '<end_of_turn>', '<mask>', '<unused7>',
  '<think>', '</think>', '<tool_call>', '</tool_call>', '<|fim_prefix|>', '<|return|>',
  '<|start|>', '<|channel|>', '<|message|>', '<|end|>', '<|call|>', '<｜begin▁of▁sentence｜>',
  '<｜end▁of▁sentence｜>', '<｜User｜>', '<｜Assistant｜>', '<|im_end', '|im_end|>', '<<|im_end|>>',
  '<|reserved_special_token_5|>', '<start_of_image>', '[multimodal]', '<|vision_start|>'];
for (let i = 0; i < 300; i++) {
  let s = '';
  const n = int(1, 10);
  for (let k = 0; k < n; k++) {
    const r = rand();
    s += r < 0.45 ? pick(specials) : r < 0.6 ? ' ' : r < 0.7 ? '\n' : pick(words) + (rand() < 0.5 ? ' ' : '');
  }
  add(s);
}
add('<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n');
add('<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi there<|eot_id|>');
add('<bos><start_of_turn>user\nWhy is the sky blue?<end_of_turn>\n<start_of_turn>model\n');
add('<s>[INST] Hello [/INST] Hi</s>');

// --- Random mixes and long lines --------------------------------------------------------------
const pools = [words.join(' '), Object.values(scripts).join(''), emoji.join(''), code.join(''),
  spaces.join(''), odd.join(''), specials.join(''), '0123456789'];
for (let i = 0; i < 230; i++) {
  let s = '';
  const n = int(1, 12);
  for (let k = 0; k < n; k++) {
    const p = [...pick(pools)];
    const a = int(0, p.length - 1);
    s += p.slice(a, a + int(1, 40)).join('');
  }
  add(s);
}
for (let i = 0; i < 30; i++) {
  let s = '';
  while (s.length < 4000 + i * 300) s += pick(lines) + pick([' ', '\n', '']);
  add(s);
}
add('');
add(' ');
add('\n');
add('a');
add(' a');
add('  a');

for (const l of lines) process.stdout.write(JSON.stringify(l) + '\n');
