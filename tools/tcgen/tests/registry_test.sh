#!/usr/bin/env bash
# The verb registry (verb.hpp) seen from outside: every verb tcgen --help
# lists is named by the unknown-verb error, completed, and runs its own
# --help; every command the completion script knows is listed and runs its --help.
#   registry_test.sh TCGEN
set -u
TCGEN=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

usage=$("$TCGEN" --help) || { echo "FAIL: tcgen --help exited $?"; exit 1; }
script=$("$TCGEN" completion bash) || { echo "FAIL: tcgen completion bash exited $?"; exit 1; }
error=$("$TCGEN" no-such-verb 2>&1 >/dev/null)
# The verbs: the lines of the "verbs:" section that start a verb ("  name   summary").
mapfile -t listed < <(sed -n '/^verbs:$/,/^$/p' <<<"$usage" | grep -oE '^  [a-z][a-z-]*( [a-z]+)? ' | sed -E 's/^  //; s/ +$//')
[[ ${#listed[@]} -ge 10 ]] || fail "tcgen --help lists ${#listed[@]} verbs, expected the registry's (at least 10)"
first_words=$(grep -oE 'compgen -W "[^"]*" -- "\$cur"\)\)$' <<<"$script" | head -1)
for verb in "${listed[@]}"; do
  [[ $error == *" $verb,"* || $error == *" $verb or "* || $error == *" or $verb;"* || $error == *"expected $verb,"* ]] ||
    fail "the unknown-verb error does not list $verb: $error"
  if [[ $verb == run ]] && ! grep -q '"run")' <<<"$script"; then continue; fi  # a build without nvcc: listed, not built
  [[ $first_words == *"${verb%% *}"* ]] || fail "$verb is not among the completed verbs: $first_words"
  # shellcheck disable=SC2086
  help=$("$TCGEN" help $verb) || { fail "tcgen help $verb exited $?"; continue; }
  [[ $help == "usage: tcgen ${verb%% *}"* ]] || fail "tcgen help $verb does not start with 'usage: tcgen ${verb%% *}'"
done
while IFS= read -r command; do
  [[ " ${listed[*]} " == *" ${command%% *} "* || " ${listed[*]} " == *" $command "* ]] ||
    fail "the completion script completes '$command', which tcgen --help does not list"
  # shellcheck disable=SC2086
  "$TCGEN" help $command >/dev/null || fail "tcgen help $command exited $?"
done < <(grep -oE '^ *"[a-z -]+"\) switches=' <<<"$script" | sed -E 's/^ *"([^"]+)".*/\1/')

if [[ $failures -ne 0 ]]; then echo "$failures failures"; exit 1; fi
echo "registry: ${#listed[@]} verbs listed, completed and run"
