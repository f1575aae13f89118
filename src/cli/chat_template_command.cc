// `strata chat-template`: renders a model's chat template (from tokenizer_config.json) on a
// conversation and prints the prompt text exactly, with no trailing newline added.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "nlohmann/json.hpp"
#include "strata/chat_template.h"

namespace strata::cli {
namespace {

const std::vector<FlagSpec>& ChatTemplateFlags() {
  static const std::vector<FlagSpec> specs = {
      {"tokenizer", "directory with tokenizer_config.json"},
      {"messages-file", "JSON file: the messages array (or an object with \"messages\")"},
      {"tools-file", "JSON file: the tools array (optional)"},
      {"add-generation-prompt", "end with the assistant turn's opening", true},
      {"kwargs", "JSON object of extra template variables, e.g. '{\"enable_thinking\":false}'"},
      {"template-name", "which named template when there are several", false, "default"},
      {"help", "show this help", true},
  };
  return specs;
}

absl::StatusOr<nlohmann::ordered_json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto json = nlohmann::ordered_json::parse(buffer.str(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": invalid JSON"));
  return json;
}

}  // namespace

int ChatTemplateCommand(int argc, char** argv) {
  auto fail = [](const absl::Status& s) {
    std::fprintf(stderr, "strata chat-template: %s\n", std::string(s.message()).c_str());
    return 2;
  };
  auto flags = Flags::Parse(ChatTemplateFlags(), argc, argv, 2);
  if (!flags.ok()) return fail(flags.status());
  if (flags->Bool("help")) {
    std::printf("%s", Flags::Help("strata chat-template --tokenizer DIR --messages-file F "
                                  "[--tools-file F] [--add-generation-prompt] [--kwargs JSON]",
                                  ChatTemplateFlags())
                          .c_str());
    return 0;
  }
  if (!flags->Has("tokenizer") || !flags->Has("messages-file")) {
    return fail(absl::InvalidArgumentError("--tokenizer and --messages-file are required"));
  }
  auto config = ReadJsonFile(flags->String("tokenizer") + "/tokenizer_config.json");
  if (!config.ok()) return fail(config.status());
  auto chat = ReadTokenizerChatConfig(*config, flags->String("template-name", "default"));
  if (!chat.ok()) return fail(chat.status());
  auto tmpl = ChatTemplate::Compile(chat->chat_template);
  if (!tmpl.ok()) return fail(tmpl.status());

  ChatTemplateInputs inputs;
  auto messages = ReadJsonFile(flags->String("messages-file"));
  if (!messages.ok()) return fail(messages.status());
  inputs.messages = messages->is_object() && messages->contains("messages")
                        ? (*messages)["messages"]
                        : *messages;
  if (flags->Has("tools-file")) {
    auto tools = ReadJsonFile(flags->String("tools-file"));
    if (!tools.ok()) return fail(tools.status());
    inputs.tools = *tools;
  }
  inputs.add_generation_prompt = flags->Bool("add-generation-prompt");
  inputs.bos_token = chat->bos_token;
  inputs.eos_token = chat->eos_token;
  if (flags->Has("kwargs")) {
    auto kwargs = nlohmann::ordered_json::parse(flags->String("kwargs"), nullptr, false);
    if (kwargs.is_discarded() || !kwargs.is_object()) {
      return fail(absl::InvalidArgumentError("--kwargs must be a JSON object"));
    }
    inputs.kwargs = kwargs;
  }
  auto text = tmpl->Render(inputs);
  if (!text.ok()) return fail(text.status());
  std::fwrite(text->data(), 1, text->size(), stdout);
  return 0;
}

}  // namespace strata::cli
