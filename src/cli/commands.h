// Entry points of the `strata` subcommands; each parses its own flags from argv[2..].
#pragma once

namespace strata::cli {

int ChatTemplateCommand(int argc, char** argv);
int GenerateCommand(int argc, char** argv);
int MakeModelCommand(int argc, char** argv);
int TokenizeCommand(int argc, char** argv);

}  // namespace strata::cli
