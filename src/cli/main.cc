// `strata`: the command-line entry point; dispatches to a subcommand.
#include <cstdio>
#include <cstring>

#include "backend/cpu/ops.h"
#include "cli/commands.h"
#include "strata/logging.h"

namespace {

constexpr char kUsage[] =
    "usage: strata <command> [flags]\n\n"
    "commands:\n"
    "  chat-template render a model's chat template on a conversation\n"
    "  generate     run a model on prompts and print tokens and throughput\n"
    "  make-model   write a random-weight model as a Hugging Face directory and a GGUF file\n"
    "  tokenize     encode text with a model's tokenizer and print the ids\n\n"
    "`strata <command> --help` lists a command's flags.\n";

}  // namespace

int main(int argc, char** argv) {
  if (!strata::cpu::CpuSupportsKernels()) {
    std::fprintf(stderr,
                 "strata: this CPU lacks AVX2/FMA/F16C; Strata's CPU kernels need x86-64-v3\n");
    return 1;
  }
  strata::InitLogging();
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "help") == 0) {
    std::printf("%s", kUsage);
    return argc < 2 ? 2 : 0;
  }
  const char* command = argv[1];
  if (std::strcmp(command, "chat-template") == 0) {
    return strata::cli::ChatTemplateCommand(argc, argv);
  }
  if (std::strcmp(command, "generate") == 0) return strata::cli::GenerateCommand(argc, argv);
  if (std::strcmp(command, "make-model") == 0) return strata::cli::MakeModelCommand(argc, argv);
  if (std::strcmp(command, "tokenize") == 0) return strata::cli::TokenizeCommand(argc, argv);
  std::fprintf(stderr, "strata: unknown command '%s'\n\n%s", command, kUsage);
  return 2;
}
