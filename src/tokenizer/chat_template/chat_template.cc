#include "strata/chat_template.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "strata/status_macros.h"
#include "tokenizer/chat_template/ast.h"
#include "tokenizer/chat_template/evaluator.h"
#include "tokenizer/chat_template/lexer.h"
#include "tokenizer/chat_template/parser.h"
#include "tokenizer/chat_template/value.h"

namespace strata {

absl::StatusOr<ChatTemplate> ChatTemplate::Compile(const std::string& source) {
  ASSIGN_OR_RETURN(std::vector<jinja::Token> tokens, jinja::Tokenize(source));
  ASSIGN_OR_RETURN(jinja::NodePtr program, jinja::Parse(tokens, source));
  ChatTemplate t;
  t.source_ = std::make_shared<const std::string>(source);
  t.program_ = std::move(program);
  return t;
}

absl::StatusOr<std::string> ChatTemplate::Render(const ChatTemplateInputs& inputs,
                                                 const ChatTemplateLimits& limits) const {
  jinja::Interpreter interp(*source_, limits);
  auto globals = std::make_shared<jinja::Env>();
  jinja::InstallGlobals(interp, *globals);
  // Template variables, declared once each (a duplicate is an error, as in the reference).
  auto declare = [&](const std::string& name, jinja::Value value) -> absl::Status {
    if (globals->vars.count(name)) {
      return absl::InvalidArgumentError(absl::StrCat("Variable already declared: ", name));
    }
    globals->Set(name, std::move(value));
    return absl::OkStatus();
  };
  ASSIGN_OR_RETURN(jinja::Value messages, jinja::Value::FromJson(inputs.messages));
  RETURN_IF_ERROR(declare("messages", std::move(messages)));
  ASSIGN_OR_RETURN(jinja::Value tools, jinja::Value::FromJson(inputs.tools));
  RETURN_IF_ERROR(declare("tools", std::move(tools)));
  RETURN_IF_ERROR(declare("add_generation_prompt", jinja::Value::Bool(inputs.add_generation_prompt)));
  RETURN_IF_ERROR(declare("bos_token", jinja::Value::String(inputs.bos_token)));
  RETURN_IF_ERROR(declare("eos_token", jinja::Value::String(inputs.eos_token)));
  if (inputs.kwargs.is_object()) {
    for (auto it = inputs.kwargs.begin(); it != inputs.kwargs.end(); ++it) {
      ASSIGN_OR_RETURN(jinja::Value v, jinja::Value::FromJson(it.value()));
      RETURN_IF_ERROR(declare(it.key(), std::move(v)));
    }
  } else if (!inputs.kwargs.is_null()) {
    return absl::InvalidArgumentError("chat template kwargs must be a JSON object");
  }
  auto result = interp.Run(*program_, globals);
  if (!result.ok()) return absl::InvalidArgumentError(result.status().message());
  return result;
}

absl::StatusOr<TokenizerChatConfig> ReadTokenizerChatConfig(const nlohmann::ordered_json& config,
                                                            const std::string& name) {
  if (!config.is_object()) return absl::InvalidArgumentError("tokenizer config is not an object");
  TokenizerChatConfig out;
  auto token = [&](const char* key) -> std::string {
    auto it = config.find(key);
    if (it == config.end()) return "";
    if (it->is_string()) return it->get<std::string>();
    if (it->is_object() && it->contains("content") && (*it)["content"].is_string()) {
      return (*it)["content"].get<std::string>();
    }
    return "";
  };
  out.bos_token = token("bos_token");
  out.eos_token = token("eos_token");
  auto it = config.find("chat_template");
  if (it == config.end() || it->is_null()) {
    return absl::NotFoundError("tokenizer config has no chat_template");
  }
  if (it->is_string()) {
    out.chat_template = it->get<std::string>();
    return out;
  }
  if (it->is_array()) {
    for (const auto& entry : *it) {
      if (entry.is_object() && entry.value("name", "") == name && entry.contains("template") &&
          entry["template"].is_string()) {
        out.chat_template = entry["template"].get<std::string>();
        return out;
      }
    }
    return absl::NotFoundError(absl::StrCat("tokenizer config has no chat template named '", name, "'"));
  }
  return absl::InvalidArgumentError("chat_template must be a string or a list of named templates");
}

}  // namespace strata
