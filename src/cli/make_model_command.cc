// `strata make-model`: writes a random-weight model (Hugging Face directory + GGUF) of a
// supported architecture, for tests and benchmarks. See model/make_model.h.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "model/make_model.h"

namespace strata::cli {
namespace {

const std::vector<FlagSpec>& MakeModelFlags() {
  static const std::vector<FlagSpec> specs = {
      {"arch", "architecture: llama, qwen2, qwen3 or mistral", false, "qwen3"},
      {"preset", "shape: tiny (hidden 64, 4 layers) or q06b (Qwen3-0.6B's shape)", false, "tiny"},
      {"seed", "random seed (weights are a pure function of seed and tensor name)", false, "0"},
      {"tokenizer", "directory with tokenizer.json + tokenizer_config.json (optional)"},
      {"out", "output directory: <out>/hf/ and <out>/model-<dtype>.gguf"},
      {"dtype", "HF weight dtype: f32, bf16 or f16", false, "f32"},
      {"gguf-dtype", "GGUF weight dtype: f32, bf16, f16 or q8_0 (default: --dtype)"},
      {"help", "show this help", true},
  };
  return specs;
}

}  // namespace

int MakeModelCommand(int argc, char** argv) {
  auto flags = Flags::Parse(MakeModelFlags(), argc, argv, 2);
  if (!flags.ok()) {
    std::fprintf(stderr, "strata make-model: %s\n", std::string(flags.status().message()).c_str());
    return 2;
  }
  if (flags->Bool("help")) {
    std::printf("%s", Flags::Help("strata make-model --out DIR [--arch qwen3] [--preset tiny] "
                                  "[--tokenizer DIR] [--dtype f32] [--gguf-dtype q8_0]",
                                  MakeModelFlags())
                          .c_str());
    return 0;
  }
  auto fail = [](const absl::Status& s) {
    std::fprintf(stderr, "strata make-model: %s\n", std::string(s.message()).c_str());
    return 2;
  };
  MakeModelOptions options;
  auto arch = ParseArchitecture(flags->String("arch", "qwen3"));
  if (!arch.ok()) return fail(arch.status());
  options.arch = *arch;
  auto preset = ParseModelPreset(flags->String("preset", "tiny"));
  if (!preset.ok()) return fail(preset.status());
  options.preset = *preset;
  const std::string seed = flags->String("seed", "0");
  if (!absl::SimpleAtoi(seed, &options.seed)) {
    return fail(absl::InvalidArgumentError(absl::StrCat("--seed: '", seed, "' is not a number")));
  }
  options.tokenizer_dir = flags->String("tokenizer");
  options.out_dir = flags->String("out");
  if (options.out_dir.empty()) return fail(absl::InvalidArgumentError("--out is required"));
  auto dtype = ParseDType(flags->String("dtype", "f32"));
  if (!dtype.ok()) return fail(dtype.status());
  options.hf_dtype = *dtype;
  if (flags->Has("gguf-dtype")) {
    auto gguf_dtype = ParseDType(flags->String("gguf-dtype"));
    if (!gguf_dtype.ok()) return fail(gguf_dtype.status());
    options.gguf_dtype = *gguf_dtype;
  }
  absl::Status s = MakeRandomModel(options);
  if (!s.ok()) {
    std::fprintf(stderr, "strata make-model: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::printf("%s\n%s\n", RandomModelHfDir(options).c_str(), RandomModelGgufPath(options).c_str());
  return 0;
}

}  // namespace strata::cli
