// chat_template_render: renders a batch of chat-template cases with strata::ChatTemplate for the
// oracle comparison (compare.mjs). Input: {"templates": {name: source}, "cases": [{template,
// messages, tools, add_generation_prompt, bos_token, eos_token, kwargs}]}. Output (stdout): a
// JSON array of {"ok": true, "text": ...} or {"ok": false, "error": ...}, one per case.
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"
#include "strata/chat_template.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: chat_template_render CASES.json\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto input = nlohmann::ordered_json::parse(buffer.str(), nullptr, false);
  if (input.is_discarded()) {
    std::cerr << "invalid JSON in " << argv[1] << "\n";
    return 2;
  }
  std::map<std::string, absl::StatusOr<strata::ChatTemplate>> compiled;
  for (auto it = input["templates"].begin(); it != input["templates"].end(); ++it) {
    compiled.emplace(it.key(), strata::ChatTemplate::Compile(it.value().get<std::string>()));
  }
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& c : input["cases"]) {
    nlohmann::ordered_json r;
    const auto& t = compiled.at(c["template"].get<std::string>());
    if (!t.ok()) {
      r["ok"] = false;
      r["error"] = std::string(t.status().message());
      results.push_back(r);
      continue;
    }
    strata::ChatTemplateInputs inputs;
    inputs.messages = c["messages"];
    inputs.tools = c.value("tools", nlohmann::ordered_json());
    inputs.add_generation_prompt = c.value("add_generation_prompt", false);
    inputs.bos_token = c.value("bos_token", "");
    inputs.eos_token = c.value("eos_token", "");
    inputs.kwargs = c.value("kwargs", nlohmann::ordered_json::object());
    auto text = t->Render(inputs);
    if (text.ok()) {
      r["ok"] = true;
      r["text"] = *text;
    } else {
      r["ok"] = false;
      r["error"] = std::string(text.status().message());
    }
    results.push_back(r);
  }
  std::cout << results.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return 0;
}
