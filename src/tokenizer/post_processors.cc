#include "tokenizer/post_processors.h"

#include "absl/strings/str_cat.h"

namespace strata::tokenizer {
namespace {

// The single-sequence template: special-token id runs with the sequence ("A") in between.
class TemplateProcessor : public PostProcessor {
 public:
  TemplateProcessor(std::vector<int32_t> before, std::vector<int32_t> after)
      : before_(std::move(before)), after_(std::move(after)) {}
  void Process(std::vector<int32_t>* ids) const override {
    ids->insert(ids->begin(), before_.begin(), before_.end());
    ids->insert(ids->end(), after_.begin(), after_.end());
  }

 private:
  std::vector<int32_t> before_, after_;
};

class NoopProcessor : public PostProcessor {
 public:
  void Process(std::vector<int32_t>* ids) const override {}
};

class SequenceProcessor : public PostProcessor {
 public:
  explicit SequenceProcessor(std::vector<std::unique_ptr<PostProcessor>> list)
      : list_(std::move(list)) {}
  void Process(std::vector<int32_t>* ids) const override {
    for (const auto& p : list_) p->Process(ids);
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> list_;
};

// `[token, id]` as Roberta/Bert processors store cls and sep.
int32_t PairId(const Json* pair) {
  if (pair == nullptr || !pair->is_array() || pair->size() != 2 || !(*pair)[1].is_number()) {
    return -1;
  }
  return (*pair)[1].get<int32_t>();
}

}  // namespace

std::unique_ptr<PostProcessor> MakeBosEosProcessor(int32_t bos, int32_t eos) {
  std::vector<int32_t> before, after;
  if (bos >= 0) before.push_back(bos);
  if (eos >= 0) after.push_back(eos);
  return std::make_unique<TemplateProcessor>(std::move(before), std::move(after));
}

absl::StatusOr<std::unique_ptr<PostProcessor>> ParsePostProcessor(const Json& j) {
  std::string type = StrField(j, "type");
  if (type == "ByteLevel") return std::unique_ptr<PostProcessor>(new NoopProcessor());
  if (type == "TemplateProcessing") {
    const Json* single = Field(j, "single");
    const Json* specials = Field(j, "special_tokens");
    if (single == nullptr || !single->is_array()) {
      return absl::InvalidArgumentError("TemplateProcessing without a 'single' template");
    }
    std::vector<int32_t> before, after;
    bool seen_sequence = false;
    for (const Json& item : *single) {
      if (item.contains("Sequence")) {
        seen_sequence = true;
        continue;
      }
      const Json* special = Field(item, "SpecialToken");
      if (special == nullptr) return absl::InvalidArgumentError("bad TemplateProcessing item");
      std::string name = StrField(*special, "id");
      const Json* entry = specials != nullptr ? Field(*specials, name.c_str()) : nullptr;
      const Json* ids = entry != nullptr ? Field(*entry, "ids") : nullptr;
      if (ids == nullptr || !ids->is_array()) {
        return absl::InvalidArgumentError(
            absl::StrCat("TemplateProcessing: special token '", name, "' has no ids"));
      }
      for (const Json& id : *ids) {
        (seen_sequence ? after : before).push_back(id.get<int32_t>());
      }
    }
    return std::unique_ptr<PostProcessor>(
        new TemplateProcessor(std::move(before), std::move(after)));
  }
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    int32_t cls = PairId(Field(j, "cls")), sep = PairId(Field(j, "sep"));
    return MakeBosEosProcessor(cls, sep);
  }
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PostProcessor>> list;
    const Json* items = Field(j, "processors");
    if (items != nullptr && items->is_array()) {
      for (const Json& item : *items) {
        auto p = ParsePostProcessor(item);
        if (!p.ok()) return p.status();
        list.push_back(std::move(*p));
      }
    }
    return std::unique_ptr<PostProcessor>(new SequenceProcessor(std::move(list)));
  }
  return absl::UnimplementedError(
      absl::StrCat("tokenizer.json: post-processor '", type, "' is not supported yet"));
}

}  // namespace strata::tokenizer
