// One behaviour per TEST: syntax, statements, expressions, filters, tests, methods, errors and
// limits of strata::ChatTemplate. Expected strings are what @huggingface/jinja renders.
#include "strata/chat_template.h"

#include <string>

#include "gtest/gtest.h"

namespace strata {
namespace {

using json = nlohmann::ordered_json;

std::string Render(const std::string& source, json kwargs = json::object(),
                   json messages = json::array()) {
  auto t = ChatTemplate::Compile(source);
  if (!t.ok()) return "COMPILE ERROR: " + std::string(t.status().message());
  ChatTemplateInputs in;
  in.messages = messages;
  in.kwargs = kwargs;
  in.bos_token = "<s>";
  in.eos_token = "</s>";
  auto r = t->Render(in);
  if (!r.ok()) return "ERROR: " + std::string(r.status().message());
  return *r;
}

TEST(ChatTemplateTest, PlainText) { EXPECT_EQ(Render("hello"), "hello"); }

TEST(ChatTemplateTest, DropsOneTrailingNewline) { EXPECT_EQ(Render("a\n\n"), "a\n"); }

TEST(ChatTemplateTest, Variables) {
  EXPECT_EQ(Render("{{ bos_token }}x{{ eos_token }}"), "<s>x</s>");
  EXPECT_EQ(Render("{{ name }}", {{"name", "Ann"}}), "Ann");
}

TEST(ChatTemplateTest, UndefinedPrintsEmpty) { EXPECT_EQ(Render("[{{ nope }}][{{ nope.x }}]"), "[][]"); }

TEST(ChatTemplateTest, TrimBlocksAndLstripBlocks) {
  EXPECT_EQ(Render("{% if true %}\n  a\n{% endif %}\nb"), "  a\nb");
  EXPECT_EQ(Render("x\n    {% if true %}y{% endif %}"), "x\ny");
}

TEST(ChatTemplateTest, WhitespaceControl) {
  EXPECT_EQ(Render("a   {{- 'b' -}}   c"), "abc");
  EXPECT_EQ(Render("a \n {%- if true -%} \n b {%- endif %}"), "ab");
  EXPECT_EQ(Render("a  {#- comment -#}  b"), "ab");
}

TEST(ChatTemplateTest, IfElifElse) {
  const std::string t = "{% if x == 1 %}one{% elif x == 2 %}two{% else %}many{% endif %}";
  EXPECT_EQ(Render(t, {{"x", 1}}), "one");
  EXPECT_EQ(Render(t, {{"x", 2}}), "two");
  EXPECT_EQ(Render(t, {{"x", 5}}), "many");
}

TEST(ChatTemplateTest, ForLoopVariables) {
  EXPECT_EQ(Render("{% for x in ['a','b','c'] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}"
                   "{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}"),
            "103truefalse3;212falsefalse3;321falsetrue3;");
  EXPECT_EQ(Render("{% for x in [1,2,3] %}{{ loop.previtem | default('-') }}{{ loop.nextitem | default('-') }} {% endfor %}"),
            "-2 13 2- ");
}

TEST(ChatTemplateTest, ForFilterElseAndUnpacking) {
  EXPECT_EQ(Render("{% for x in [1,2,3,4] if x is even %}{{ x }}{% endfor %}"), "24");
  EXPECT_EQ(Render("{% for x in [] %}{{ x }}{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(Render("{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }},{% endfor %}"), "a=1,b=2,");
  EXPECT_EQ(Render("{% for k in {'z': 1, 'a': 2} %}{{ k }}{% endfor %}"), "za");
}

TEST(ChatTemplateTest, BreakAndContinue) {
  EXPECT_EQ(Render("{% for x in range(10) %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %}"), "012");
  EXPECT_EQ(Render("{% for x in range(5) %}{% if x is odd %}{% continue %}{% endif %}{{ x }}{% endfor %}"), "024");
}

TEST(ChatTemplateTest, ForScopeDoesNotLeak) {
  EXPECT_EQ(Render("{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}"), "1");
}

TEST(ChatTemplateTest, NamespaceCarriesStateOutOfLoops) {
  EXPECT_EQ(Render("{% set ns = namespace(n=0, items=[]) %}{% for i in range(4) %}{% set ns.n = ns.n + i %}"
                   "{% endfor %}{{ ns.n }}"),
            "6");
}

TEST(ChatTemplateTest, ListAppendInsideNamespace) {
  EXPECT_EQ(Render("{% set ns = namespace(items=[]) %}{% for i in range(3) %}{% set _ = ns.items.append(i * 2) %}"
                   "{% endfor %}{{ ns.items | join(',') }} {{ ns.items.pop() }} {{ ns.items.index(2) }}"),
            "0,2,4 4 1");
}

TEST(ChatTemplateTest, BlockSet) {
  EXPECT_EQ(Render("{% set x %}a{{ 1 + 1 }}b{% endset %}[{{ x }}]"), "[a2b]");
}

TEST(ChatTemplateTest, TupleSet) { EXPECT_EQ(Render("{% set a, b = [1, 2] %}{{ b }}{{ a }}"), "21"); }

TEST(ChatTemplateTest, MacroWithDefaultsAndKeywords) {
  EXPECT_EQ(Render("{% macro m(a, b='B', c=none) %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }}|{{ m(1, c=3) }}|{{ m(1, 2, 3) }}"),
            "1B|1B3|123");
}

TEST(ChatTemplateTest, CallBlockWithCaller) {
  EXPECT_EQ(Render("{% macro wrap(t) %}<{{ t }}>{{ caller() }}</{{ t }}>{% endmacro %}{% call wrap('b') %}hi{% endcall %}"),
            "<b>hi</b>");
  EXPECT_EQ(Render("{% macro each(xs) %}{% for x in xs %}{{ caller(x) }}{% endfor %}{% endmacro %}"
                   "{% call(item) each([1,2]) %}[{{ item }}]{% endcall %}"),
            "[1][2]");
}

TEST(ChatTemplateTest, FilterBlock) { EXPECT_EQ(Render("{% filter upper %}abc{% endfilter %}"), "ABC"); }

TEST(ChatTemplateTest, RawBlock) { EXPECT_EQ(Render("{% raw %}{{ not evaluated }}{% endraw %}"), "{{ not evaluated }}"); }

TEST(ChatTemplateTest, Literals) {
  EXPECT_EQ(Render("{{ [1, 'a', none, true] }}"), "[1, \"a\", null, true]");
  EXPECT_EQ(Render("{{ {'k': 1.5} }}"), "{\"k\": 1.5}");
  EXPECT_EQ(Render("{{ 'a' 'b' }}{{ \"\\n\" | length }}{{ '\\u00e9' }}"), "ab1é");
  EXPECT_EQ(Render("{{ 2.0 }} {{ -0.5 }} {{ 1.0 }}"), "2.0 -0.5 1.0");
}

TEST(ChatTemplateTest, Arithmetic) {
  EXPECT_EQ(Render("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ 2 ** 8 }} {{ 7 / 2 }} {{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }}"),
            "3 -4 1 256 3.5 7 9");
  EXPECT_EQ(Render("{{ 0.1 + 0.2 }} {{ 4 / 2 }}"), "0.30000000000000004 2.0");
}

TEST(ChatTemplateTest, ComparisonsAndLogic) {
  EXPECT_EQ(Render("{{ 1 < 2 and 2 <= 2 and not 3 > 4 }} {{ none or 'x' }} {{ 0 and 1 }}"), "true x 0");
  EXPECT_EQ(Render("{{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ 'k' not in {'k': 1} }} {{ 'x' in undefined_var }}"),
            "true true false false");
}

TEST(ChatTemplateTest, EqualityFollowsJavaScript) {
  EXPECT_EQ(Render("{{ nope == none }} {{ 1 == 1.0 }} {{ 1 == '1' }} {{ [] == [] }}"), "true true true false");
}

TEST(ChatTemplateTest, ConcatAndTernary) {
  EXPECT_EQ(Render("{{ 'a' ~ 1 ~ 2.0 ~ true }} {{ 'a' + 'b' }} {{ 'y' if 1 else 'n' }} [{{ 'y' if 0 }}]"),
            "a12true ab y []");
}

TEST(ChatTemplateTest, SubscriptsAndSlices) {
  EXPECT_EQ(Render("{{ xs[0] }}{{ xs[-1] }}{{ xs[1:] }}{{ xs[::-1] }}{{ xs[:-1] }}{{ xs[5] }}", {{"xs", {1, 2, 3}}}),
            "13[2, 3][3, 2, 1][1, 2]");
  EXPECT_EQ(Render("{{ 'hello'[1:3] }}{{ 'héllo'[::-1] }}{{ 'abc'[-1] }}"), "elolléhc");
  EXPECT_EQ(Render("{{ d.a }}{{ d['b'] }}{{ d.missing }}{{ d.a.b.c }}", {{"d", {{"a", 1}, {"b", 2}}}}), "12");
}

TEST(ChatTemplateTest, Tests) {
  EXPECT_EQ(Render("{{ x is defined }}{{ y is undefined }}{{ none is none }}{{ 'a' is string }}{{ 1 is number }}"
                   "{{ 1 is integer }}{{ 1.5 is integer }}{{ {} is mapping }}{{ [] is iterable }}{{ 'a' is sequence }}",
                   {{"x", 1}}),
            "truetruetruetruetruetruefalsetruetruetrue");
  EXPECT_EQ(Render("{{ true is boolean }}{{ true is true }}{{ false is false }}{{ 3 is odd }}{{ 4 is even }}"
                   "{{ 1 is not none }}{{ 6 is divisibleby(3) }}{{ 2 is eq(2) }}{{ 2 is ne 3 }}"),
            "truetruetruetruetruetruetruetruetrue");
}

TEST(ChatTemplateTest, ToJsonMatchesReference) {
  json d = {{"b", 1}, {"a", {1, 2.5, nullptr, true, "é\"\n"}}};
  EXPECT_EQ(Render("{{ d | tojson }}", {{"d", d}}), "{\"b\": 1, \"a\": [1, 2.5, null, true, \"é\\\"\\n\"]}");
  EXPECT_EQ(Render("{{ d | tojson(indent=2) }}", {{"d", {{"a", {1}}, {"e", json::object()}}}}),
            "{\n  \"a\": [\n    1\n  ],\n  \"e\": {}\n}");
  EXPECT_EQ(Render("{{ 'é' | tojson(ensure_ascii=true) }} {{ 1.0 | tojson }} {{ x | tojson }}"),
            "\"\\u00e9\" 1 null");
  EXPECT_EQ(Render("{{ {'b': 1, 'a': 2} | tojson(sort_keys=true, separators=(',', ':')) }}"), "{\"a\":2,\"b\":1}");
}

TEST(ChatTemplateTest, StringFilters) {
  EXPECT_EQ(Render("{{ '  a b  ' | trim }}|{{ 'ab' | upper }}{{ 'AB' | lower }}|{{ 'hello world' | title }}|"
                   "{{ 'hELLO' | capitalize }}|{{ 'abc' | length }}|{{ 'a-b' | replace('-', '+') }}"),
            "a b|ABab|Hello World|HELLO|3|a+b");
  EXPECT_EQ(Render("{{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}"), "a\n  b\n\n  c|  a\n  b");
  EXPECT_EQ(Render("{{ '42' | int + 1 }} {{ '2.5' | float }} {{ 'x' | int }} {{ 3.7 | int }} {{ -3 | abs }}"),
            "43 2.5 0 3 3");
}

TEST(ChatTemplateTest, ListFilters) {
  EXPECT_EQ(Render("{{ [3, 1, 2] | sort | join(',') }} {{ [1, 2] | first }}{{ [1, 2] | last }} {{ [1, 1, 2] | unique | list }}"
                   " {{ ['b', 'A'] | sort(reverse=true) | join }} {{ [1, 2] | reverse | join('-') }}"),
            "1,2,3 12 [1, 2] bA 2-1");
  json people = {{{"name", "a"}, {"age", 3}}, {{"name", "b"}, {"age", 1}}, {{"name", "c"}}};
  EXPECT_EQ(Render("{{ p | map(attribute='name') | join }} {{ p | selectattr('age') | list | length }} "
                   "{{ p | rejectattr('age') | map(attribute='name') | join }} {{ p | selectattr('name', 'equalto', 'b') | map(attribute='age') | first }} "
                   "{{ p | sort(attribute='name', reverse=true) | map(attribute='name') | join }}",
                   {{"p", people}}),
            "abc 2 c 1 cba");
  EXPECT_EQ(Render("{{ ['a', 'B'] | map('upper') | join }} {{ [0, 1, 2] | select('odd') | list }} {{ [1, 2, 3] | batch(2) | list }}"),
            "AB [1] [[1, 2], [3]]");
}

TEST(ChatTemplateTest, DictFiltersAndMethods) {
  json d = {{"b", 2}, {"a", 1}};
  EXPECT_EQ(Render("{{ d | items | list }} {{ d.keys() | join }} {{ d.values() | join }} {{ d.get('a') }}{{ d.get('z', 9) }}"
                   " {% for k, v in d | dictsort %}{{ k }}{{ v }}{% endfor %} {{ d | length }}",
                   {{"d", d}}),
            "[[\"b\", 2], [\"a\", 1]] ba 21 19 a1b2 2");
}

TEST(ChatTemplateTest, DefaultFilter) {
  EXPECT_EQ(Render("{{ x | default('d') }} {{ '' | default('d') }} {{ '' | default('d', true) }} {{ 0 | d('z', boolean=true) }}"),
            "d  d z");
}

TEST(ChatTemplateTest, StringMethods) {
  EXPECT_EQ(Render("{{ 'a,b,c'.split(',') }} {{ 'a b  c'.split() }} {{ 'a,b,c'.split(',', 1) }}"),
            "[\"a\", \"b\", \"c\"] [\"a\", \"b\", \"c\"] [\"a\", \"b,c\"]");
  EXPECT_EQ(Render("{{ 'xxhixx'.strip('x') }}|{{ '\\n\\nhi\\n'.lstrip('\\n') }}|{{ ' hi '.rstrip() }}|"
                   "{{ 'abc'.startswith(('x', 'a')) }}{{ 'abc'.endswith('bc') }}"),
            "hi|hi\n| hi|truetrue");
  EXPECT_EQ(Render("{{ '{} and {name}'.format(1, name='x') }} {{ '-'.join(['a', 'b']) }} {{ 'hello'.find('l') }}"
                   " {{ 'hello'.count('l') }} {{ 'Hi'.upper() }}{{ 'Hi'.lower() }} {{ 'a-b'.replace('-', '') }}"),
            "1 and x a-b 2 2 HIhi ab");
}

TEST(ChatTemplateTest, MessagesLikeARealTemplate) {
  json messages = {{{"role", "system"}, {"content", "S"}}, {{"role", "user"}, {"content", "U"}}};
  EXPECT_EQ(Render("{% for m in messages %}<|{{ m.role }}|>{{ m['content'] }}\n{% endfor %}", json::object(), messages),
            "<|system|>S\n<|user|>U\n");
}

TEST(ChatTemplateTest, RaiseException) {
  EXPECT_EQ(Render("a{{ raise_exception('bad roles') }}"), "ERROR: bad roles");
}

TEST(ChatTemplateTest, SyntaxErrorsCarryLineAndColumn) {
  auto t = ChatTemplate::Compile("line1\n{% if x %}\n{{ 1 + }}\n{% endif %}");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(t.status().message()).find("3:"), std::string::npos) << t.status();
  EXPECT_FALSE(ChatTemplate::Compile("{% if x %}never closed").ok());
  EXPECT_FALSE(ChatTemplate::Compile("{% for %}").ok());
  EXPECT_FALSE(ChatTemplate::Compile("{{ 'unterminated }}").ok());
  EXPECT_FALSE(ChatTemplate::Compile("{% unknown %}").ok());
  EXPECT_FALSE(ChatTemplate::Compile("{{ a b }}").ok());
  EXPECT_FALSE(ChatTemplate::Compile("{# never closed").ok());
}

TEST(ChatTemplateTest, TypeErrorsAreStatuses) {
  EXPECT_EQ(Render("{{ 1 + none }}").rfind("ERROR: ", 0), 0u);
  EXPECT_EQ(Render("{{ x + 1 }}").rfind("ERROR: ", 0), 0u);
  EXPECT_EQ(Render("{{ nope() }}").rfind("ERROR: ", 0), 0u);
  EXPECT_EQ(Render("{{ 1 // 0 }}").rfind("ERROR: ", 0), 0u);
  EXPECT_EQ(Render("{{ 3 is odd(1, 2) }}"), "true");
  EXPECT_EQ(Render("{{ [1] | nofilter }}").rfind("ERROR: ", 0), 0u);
  EXPECT_EQ(Render("{{ x is nosuchtest }}").rfind("ERROR: ", 0), 0u);
}

TEST(ChatTemplateTest, RuntimeErrorsNameTheirLocation) {
  EXPECT_NE(Render("\n\n  {{ 1 + none }}").find("(at 3:"), std::string::npos);
}

TEST(ChatTemplateTest, DuplicateVariableIsAnError) {
  auto t = ChatTemplate::Compile("x");
  ChatTemplateInputs in;
  in.kwargs = {{"messages", 1}};
  EXPECT_FALSE(t->Render(in).ok());
}

TEST(ChatTemplateTest, InfiniteRecursionIsBounded) {
  EXPECT_EQ(Render("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}").rfind("ERROR: ", 0), 0u);
}

TEST(ChatTemplateTest, HugeLoopsAreBounded) {
  auto t = ChatTemplate::Compile("{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}");
  ASSERT_TRUE(t.ok());
  ChatTemplateLimits limits;
  limits.max_steps = 100000;
  EXPECT_FALSE(t->Render({}, limits).ok());
}

TEST(ChatTemplateTest, OutputGrowthIsBounded) {
  auto t = ChatTemplate::Compile("{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}");
  ASSERT_TRUE(t.ok());
  ChatTemplateLimits limits;
  limits.max_output_bytes = 1 << 20;
  EXPECT_FALSE(t->Render({}, limits).ok());
}

TEST(ChatTemplateTest, DeepNestingIsASyntaxError) {
  EXPECT_FALSE(ChatTemplate::Compile("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}").ok());
}

TEST(ChatTemplateTest, GenerationTagsAreDropped) {
  EXPECT_EQ(Render("a{% generation %}b{% endgeneration %}c"), "abc");
}

TEST(ChatTemplateTest, StrftimeNowAndRange) {
  EXPECT_EQ(Render("{{ strftime_now('%Y') | length }} {{ range(2, 8, 3) | list }}"), "4 [2, 5]");
}

TEST(ReadTokenizerChatConfigTest, StringAndNamedForms) {
  json config = {{"chat_template", "T"}, {"bos_token", "<s>"},
                 {"eos_token", {{"__type", "AddedToken"}, {"content", "</s>"}}}};
  auto c = ReadTokenizerChatConfig(config);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->chat_template, "T");
  EXPECT_EQ(c->bos_token, "<s>");
  EXPECT_EQ(c->eos_token, "</s>");
  json named = {{"chat_template", {{{"name", "tool_use"}, {"template", "X"}}, {{"name", "default"}, {"template", "D"}}}}};
  EXPECT_EQ(ReadTokenizerChatConfig(named)->chat_template, "D");
  EXPECT_EQ(ReadTokenizerChatConfig(named, "tool_use")->chat_template, "X");
  EXPECT_FALSE(ReadTokenizerChatConfig(json::object()).ok());
}

}  // namespace
}  // namespace strata
