// ChatTemplate: renders a Hugging Face `chat_template` (Jinja2) into a prompt string.
//
// Owns a self-contained Jinja2 interpreter (lexer, parser, evaluator) sized for real chat
// templates. Written here because no C++ Jinja library packaged in Debian matches the semantics
// of HF transformers / @huggingface/jinja. The reference is @huggingface/jinja (the template oracle
// in tests/oracle/chat_template): where it renders, Strata renders the same bytes; where it fails
// on something Python's Jinja2 accepts (list.append, string.format, `x is divisibleby(3)`, ...)
// Strata follows Python's Jinja2. The template is compiled as transformers does it:
// trim_blocks=True, lstrip_blocks=True, `{% generation %}` tags dropped.
//
// Errors (syntax errors with line:col, raise_exception(), type errors, resource limits) come back
// as absl::InvalidArgumentError; nothing throws. Rendering is bounded in recursion depth, loop
// iterations and output size, so a hostile template cannot hang the caller or exhaust memory.
//
// Thread-safety: a compiled ChatTemplate is immutable; Render() may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace strata {

namespace jinja {
struct Node;
}  // namespace jinja

// What a chat template sees. JSON values keep their key order (as Python dicts do).
struct ChatTemplateInputs {
  // [{role, content (string | [{type, text, ...}] | null), tool_calls?, reasoning_content?,
  //   tool_call_id?, name?}, ...]
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  // JSON array of tool definitions, or null (the template then sees `tools` as none).
  nlohmann::ordered_json tools = nullptr;
  bool add_generation_prompt = false;
  std::string bos_token;
  std::string eos_token;
  // Extra template variables (e.g. {"enable_thinking": false}); a JSON object or null.
  nlohmann::ordered_json kwargs = nlohmann::ordered_json::object();
};

// Limits that keep a hostile template bounded.
struct ChatTemplateLimits {
  int max_call_depth = 128;              // nested macro calls / evaluation recursion
  int64_t max_steps = 20'000'000;        // evaluated nodes + loop iterations per render
  int64_t max_output_bytes = 64 << 20;   // any rendered buffer or string value
};

class ChatTemplate {
 public:
  // Parses `source`. Syntax errors: InvalidArgumentError("chat template syntax error at L:C: ...").
  static absl::StatusOr<ChatTemplate> Compile(const std::string& source);

  // Renders the template. Errors: InvalidArgumentError with the template's message.
  absl::StatusOr<std::string> Render(const ChatTemplateInputs& inputs,
                                     const ChatTemplateLimits& limits = {}) const;

  const std::string& source() const { return *source_; }

 private:
  ChatTemplate() = default;
  std::shared_ptr<const std::string> source_;
  std::shared_ptr<const jinja::Node> program_;
};

// What tokenizer_config.json says about chat templating.
struct TokenizerChatConfig {
  std::string chat_template;
  std::string bos_token;  // "" when absent
  std::string eos_token;
};

// Reads `chat_template` (a string, or the list-of-{name, template} form, from which `name` is
// picked) and bos/eos tokens (strings or {"content": ...} AddedToken objects) from a parsed
// tokenizer_config.json. NotFoundError when there is no such template.
absl::StatusOr<TokenizerChatConfig> ReadTokenizerChatConfig(const nlohmann::ordered_json& config,
                                                            const std::string& name = "default");

}  // namespace strata
