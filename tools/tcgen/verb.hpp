#pragma once
// A verb of the tcgen program as the registry (verbs.cpp) holds it: what
// `tcgen --help` says of it, what it takes, and what runs it. main.cpp's
// usage, dispatch and error lists and the completion script are written
// from the registry, so a verb added there is listed, run and completed.
#include <span>
#include <string>
#include <string_view>

#include "args.hpp"

namespace tcgen::cli {

// A word that may follow a verb's own ("desc smem", "completion bash"), with its options.
struct SubVerb {
  std::string_view word;
  std::span<const Option> options;
};

struct Verb {
  std::string_view words;    // what follows "tcgen": "gemm", "layout smem"
  std::string_view summary;  // tcgen --help's description, lines split by '\n'
  std::string_view example;  // tcgen --help's example invocation
  std::span<const Option> options;  // what follows its words (none when only its sub-verbs take options)
  std::span<const SubVerb> subverbs;
  // Takes the arguments after its words, prints its --help when asked, throws tcgen::Error on a bad request.
  int (*run)(std::span<const std::string> args);
  // False where this build lacks it (tcgen run without nvcc): listed, `run` says why, not completed.
  bool built = true;
};

// Every verb, in tcgen --help order.
std::span<const Verb> verbs();

}  // namespace tcgen::cli
