// tcgen completion bash: a bash completion script written from the verb
// registry and the option tables the verbs parse with (verb.hpp), so it
// offers exactly the commands and options tcgen accepts. Install it with
//   tcgen completion bash > ~/.local/share/bash-completion/completions/tcgen
// or `source <(tcgen completion bash)`.
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "verb.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

constexpr const char* kHelp = R"(usage: tcgen completion bash

Prints a bash completion script for tcgen: verbs, sub-verbs and each one's
options, written from the option tables tcgen parses with; an option that
takes a value completes file names. Use it with

  source <(tcgen completion bash)
  tcgen completion bash > ~/.local/share/bash-completion/completions/tcgen
)";

// One command line the script completes: its words after "tcgen" and its options.
struct Command {
  std::string words;
  std::span<const Option> options;
};

// Every command of the built verbs, in tcgen --help order: a verb with options
// of its own (or no sub-verbs), then each of its sub-verbs.
std::vector<Command> commands() {
  std::vector<Command> all;
  for (const Verb& v : verbs()) {
    if (!v.built) continue;
    if (!v.options.empty() || v.subverbs.empty()) all.push_back({std::string(v.words), v.options});
    for (const SubVerb& s : v.subverbs) all.push_back({std::string(v.words).append(" ").append(s.word), s.options});
  }
  return all;
}

// "--a --b-type ..." for one command, aliases too.
std::string option_words(const Command& c, bool with_values) {
  std::string w;
  for (const Option& o : c.options)
    if (o.takes_value() == with_values) {
      w.append(w.empty() ? "--" : " --").append(o.name);
      if (!o.alias.empty()) w.append(" --").append(o.alias);
    }
  return w;
}

}  // namespace

int completion(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return 0;
  }
  if (args.size() != 1 || args[0] != "bash")
    fail("shell", args.empty() ? "(none)" : args[0], "expected bash: tcgen completion bash");
  // The first words: verbs; then the sub-verbs of each verb that has them.
  const std::vector<Command> all = commands();
  std::set<std::string> verbs = {"help"};
  std::map<std::string, std::string> subverbs;
  std::string pairs;  // "layout:smem desc:decode ...": the two-word commands
  for (const Command& c : all) {
    const std::string& w = c.words;
    const auto space = w.find(' ');
    verbs.insert(w.substr(0, space));
    if (space == std::string::npos) continue;
    // append(), not operator+: GCC 12 warns falsely (-Wrestrict) on such concatenations.
    subverbs[w.substr(0, space)].append(" ").append(w, space + 1);
    pairs.append(pairs.empty() ? "" : " ").append(w, 0, space).append(":").append(w, space + 1);
  }
  std::string first;
  for (const std::string& v : verbs) first.append(first.empty() ? "" : " ").append(v);
  std::cout << "# bash completion for tcgen, written by 'tcgen completion bash' from its option tables.\n"
            << "_tcgen() {\n"
            << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
            << "  local command=${COMP_WORDS[1]} switches= values= subverbs= i\n"
            << "  COMPREPLY=()\n"
            << "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
            << "    COMPREPLY=($(compgen -W \"" << first << " --help --version\" -- \"$cur\"))\n"
            << "    return\n"
            << "  fi\n"
            << "  if [[ $COMP_CWORD -ge 3 && \" " << pairs << " \" == *\" ${COMP_WORDS[1]}:${COMP_WORDS[2]} \"* ]]; then\n"
            << "    command=\"$command ${COMP_WORDS[2]}\"\n"
            << "  fi\n"
            << "  # tcgen run [options] -- PROGRAM ARGS...: after --, the program's words.\n"
            << "  if [[ $command == run ]]; then\n"
            << "    for ((i = 2; i < COMP_CWORD; i++)); do\n"
            << "      if [[ ${COMP_WORDS[i]} == -- ]]; then\n"
            << "        if [[ $cur == */* ]]; then COMPREPLY=($(compgen -f -- \"$cur\")); else COMPREPLY=($(compgen -c -- \"$cur\")); fi\n"
            << "        return\n"
            << "      fi\n"
            << "    done\n"
            << "  fi\n"
            << "  case \"$command\" in\n";
  for (const Command& c : all)
    std::cout << "    \"" << c.words << "\") switches=\"" << option_words(c, false) << " --help\"; values=\""
              << option_words(c, true) << "\" ;;\n";
  std::cout << "    help) [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W \"" << first << "\" -- \"$cur\")); return ;;\n"
            << "  esac\n"
            << "  if [[ $COMP_CWORD -eq 2 ]]; then\n"
            << "    case \"${COMP_WORDS[1]}\" in\n";
  for (const auto& [verb, words] : subverbs) std::cout << "      " << verb << ") subverbs=\"" << words.substr(1) << "\" ;;\n";
  std::cout << "    esac\n"
            << "  fi\n"
            << "  # After an option that takes a value: file names.\n"
            << "  if [[ -n $prev && \" $values \" == *\" $prev \"* ]]; then\n"
            << "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
            << "    return\n"
            << "  fi\n"
            << "  COMPREPLY=($(compgen -W \"$subverbs $switches $values\" -- \"$cur\"))\n"
            << "}\n"
            << "complete -o filenames -F _tcgen tcgen\n";
  return 0;
}

}  // namespace tcgen::cli
