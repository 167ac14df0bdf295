#!/usr/bin/env bash
# The bash completion script of `tcgen completion bash`, run in bash:
# known completions, and each command's options held against its --help text
# (written by hand), both ways: every option completed is documented, every
# option documented is completed.
#   completion_test.sh TCGEN
set -u
TCGEN=$1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

script=$("$TCGEN" completion bash) || { echo "FAIL: tcgen completion bash exited $?"; exit 1; }
source <(echo "$script")
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _tcgen; echo "${COMPREPLY[*]}"; }
expect() {
  local want=$1; shift
  local got; got=$(complete_words "$@")
  [[ $got == "$want" ]] || fail "completing '$*': got '$got', expected '$want'"
}

expect "gemm" tcgen g
expect "--dtype --d-type" tcgen gemm --d
expect "smem tmem" tcgen layout ""
expect "--swizzle" tcgen layout smem --sw
expect "--a-type --a-major --a-sf-id" tcgen idesc --a
expect "--ws --json --help --kind --cta-group" tcgen idesc decode 0x10 --
expect "--causal --causal-top-left" tcgen fmha --causal
expect "--json" tcgen ptx --j
expect "fmha" tcgen help fm
expect "bash" tcgen completion ""
mkdir -p completion_dir/sub && : > completion_dir/file.npy
expect "completion_dir/file.npy completion_dir/sub" tcgen gemm --out completion_dir/
expect "" tcgen gemm --nonexistent-prefix
run_line=$(echo "$script" | grep -c '"run")')
if [[ $run_line == 1 ]]; then
  expect "completion_dir/file.npy completion_dir/sub" tcgen run --json -- completion_dir/
fi

# Each command's options against its help. Commands that share a help text
# (desc smem and desc decode, idesc and idesc decode) are held against it
# together: every option it names is completed for one of them.
declare -A documented_by helps names
while IFS= read -r line; do
  command=$(sed -E 's/^ *"([^"]+)"\).*/\1/' <<<"$line")
  offered=$(sed -E 's/.*switches="([^"]*)"; values="([^"]*)".*/\1 \2/' <<<"$line")
  # shellcheck disable=SC2086
  help=$("$TCGEN" help $command) || { fail "tcgen help $command exited $?"; continue; }
  for option in $offered; do
    [[ $option == --help ]] && continue
    grep -qE -- "(^|[^a-z-])${option}([^a-z-]|$)" <<<"$help" || fail "$command: $option is completed but not in its --help"
  done
  key=$(md5sum <<<"$help" | cut -c1-32)
  documented_by[$key]="${documented_by[$key]:-} $offered"
  helps[$key]=$help
  names[$key]="${names[$key]:-}${names[$key]:+, }$command"
done < <(grep -E '^ *"[a-z ]+"\) switches=' <<<"$script")
for key in "${!documented_by[@]}"; do
  for option in $(grep -oE -- "(^|[ [(|,])--[a-z][a-z0-9-]*" <<<"${helps[$key]}" | grep -oE -- "--[a-z0-9-]+" | sort -u); do
    [[ " ${documented_by[$key]} " == *" $option "* ]] || fail "${names[$key]}: the --help names $option, which is not completed"
  done
done

if [[ $failures -ne 0 ]]; then echo "$failures failures"; exit 1; fi
echo "completion: all checks passed"
