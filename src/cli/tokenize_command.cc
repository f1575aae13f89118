// `strata tokenize`: encodes text with a model's tokenizer (a tokenizer directory, or the tokenizer
// of a model path: HF directory or GGUF vocabulary) and prints the ids (or, with --json, one JSON
// object with ids and token strings). With --lines, every line of --text-file is encoded
// on its own and printed as one JSON object (or id list) per line; --jsonl does the same for files
// whose lines are JSON strings (texts that hold newlines).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "cli/flags.h"
#include "model/model_tokenizer.h"
#include "nlohmann/json.hpp"
#include "strata/tokenizer.h"

namespace strata::cli {
namespace {

const std::vector<FlagSpec>& TokenizeFlags() {
  static const std::vector<FlagSpec> specs = {
      {"tokenizer", "directory holding tokenizer.json (and tokenizer_config.json)"},
      {"model", "use the tokenizer of this model (HF directory or .gguf) instead of --tokenizer"},
      {"text", "text to encode"},
      {"text-file", "file whose contents are encoded"},
      {"lines", "encode each line of --text-file separately (one output line each)", true},
      {"jsonl", "like --lines, but each line of --text-file is a JSON string", true},
      {"json", "print JSON: {\"ids\": [...], \"tokens\": [...]}", true},
      {"no-special", "do not add the post-processor's special tokens (e.g. BOS)", true},
      {"parse-special", "recognise special-token strings such as <|im_end|> in the text", true},
      {"help", "show this help", true},
  };
  return specs;
}

void Print(const Tokenizer& tokenizer, const std::vector<int32_t>& ids, bool json) {
  if (json) {
    nlohmann::json out;
    out["ids"] = ids;
    nlohmann::json tokens = nlohmann::json::array();
    for (int32_t id : ids) tokens.push_back(tokenizer.TokenToPiece(id));
    out["tokens"] = std::move(tokens);
    std::printf("%s\n",
                out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return;
  }
  std::string line;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) line += ' ';
    line += std::to_string(ids[i]);
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace

int TokenizeCommand(int argc, char** argv) {
  auto flags = Flags::Parse(TokenizeFlags(), argc, argv, 2);
  if (!flags.ok()) {
    std::fprintf(stderr, "strata tokenize: %s\n", std::string(flags.status().message()).c_str());
    return 2;
  }
  const char* usage =
      "strata tokenize (--tokenizer DIR | --model PATH) (--text TEXT | --text-file F) [--json] "
      "[--no-special] "
      "[--parse-special]";
  if (flags->Bool("help")) {
    std::printf("%s", Flags::Help(usage, TokenizeFlags()).c_str());
    return 0;
  }
  if (flags->Has("tokenizer") == flags->Has("model") ||
      flags->Has("text") == flags->Has("text-file")) {
    std::fprintf(stderr,
                 "strata tokenize: need one of --tokenizer, --model and one of --text, "
                 "--text-file\n%s\n",
                 usage);
    return 2;
  }
  auto tokenizer = flags->Has("model") ? LoadModelTokenizer(flags->String("model"))
                                       : Tokenizer::FromDirectory(flags->String("tokenizer"));
  if (!tokenizer.ok()) {
    std::fprintf(stderr, "strata tokenize: %s\n",
                 std::string(tokenizer.status().message()).c_str());
    return 1;
  }
  EncodeOptions options;
  options.add_special_tokens = !flags->Bool("no-special");
  options.parse_special = flags->Bool("parse-special");
  bool json = flags->Bool("json");
  if (flags->Has("text")) {
    Print(**tokenizer, (*tokenizer)->Encode(flags->String("text"), options), json);
    return 0;
  }
  std::ifstream in(flags->String("text-file"), std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "strata tokenize: cannot open %s\n", flags->String("text-file").c_str());
    return 1;
  }
  if (flags->Bool("jsonl")) {
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      nlohmann::json text = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!text.is_string()) {
        std::fprintf(stderr, "strata tokenize: %s:%d: not a JSON string\n",
                     flags->String("text-file").c_str(), number);
        return 1;
      }
      Print(**tokenizer, (*tokenizer)->Encode(text.get<std::string>(), options), json);
    }
    return 0;
  }
  if (flags->Bool("lines")) {
    std::string line;
    while (std::getline(in, line)) Print(**tokenizer, (*tokenizer)->Encode(line, options), json);
    return 0;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  Print(**tokenizer, (*tokenizer)->Encode(ss.str(), options), json);
  return 0;
}

}  // namespace strata::cli
