#include "strata/model_spec.h"

namespace strata {

const char* ArchitectureName(Architecture arch) {
  switch (arch) {
    case Architecture::kLlama:
      return "llama";
    case Architecture::kQwen2:
      return "qwen2";
    case Architecture::kQwen3:
      return "qwen3";
    case Architecture::kMistral:
      return "mistral";
  }
  return "?";
}

}  // namespace strata
