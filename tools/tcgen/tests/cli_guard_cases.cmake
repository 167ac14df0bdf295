# The output guard's cases and the careless-use holes, included by
# cli_test.cmake (its macros: run, ok, refused, unreadable, die) for the cases
# named guard_* and careless_*. Each data-loss case checks that the file it
# aims at is unchanged, not only the exit code.

# unchanged(file copy): `file` still has the bytes of `copy`.
function(unchanged file copy)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${file}" "${copy}" RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    die("${file} was overwritten")
  endif()
endfunction()

if(CASE STREQUAL "guard_trace_input")
  # --trace onto an input .npy, by its name, a symlink and a hard link: refused before any work.
  ok(fmha --seq-q 64 --seq-k 64 --head-dim 64 --no-reference --quiet --save-inputs "${WORK}")
  file(COPY_FILE "${WORK}/q.npy" "${WORK}/q.copy")
  file(CREATE_LINK "${WORK}/q.npy" "${WORK}/q.sym" SYMBOLIC)
  file(CREATE_LINK "${WORK}/q.npy" "${WORK}/q.hard")
  foreach(trace q.npy q.sym q.hard)
    refused("--trace = [^\n]*${trace} is invalid: expected a file the run does not read: it is --q's"
            fmha --backend ptx --q "${WORK}/q.npy" --k "${WORK}/k.npy" --v "${WORK}/v.npy" --trace "${WORK}/${trace}")
    unchanged("${WORK}/q.npy" "${WORK}/q.copy")
  endforeach()
  refused("--trace = [^\n]*k.npy is invalid: expected a file the run does not read: it is --a's"
          gemm --backend ptx --m 8 --n 8 --k 8 --a "${WORK}/k.npy" --trace "${WORK}/k.npy")
elseif(CASE STREQUAL "guard_trace_out")
  # --out o.npy --trace o.npy would lose the trace (or O): refused, nothing written.
  refused("--trace = [^\n]*o.npy is invalid: expected a file no other output writes: --out writes"
          gemm --backend ptx --m 8 --n 8 --k 8 --out "${WORK}/o.npy" --trace "${WORK}/o.npy")
  refused("--trace = [^\n]*l.npy is invalid: expected a file no other output writes: --lse writes"
          fmha --backend ptx --seq-q 64 --seq-k 64 --head-dim 64 --lse "${WORK}/l.npy" --trace "${WORK}/l.npy")
  if(EXISTS "${WORK}/o.npy" OR EXISTS "${WORK}/l.npy")
    die("a refused run wrote its output")
  endif()
  # A trace in a missing directory: exit 3 before the work, nothing run.
  unreadable("--trace = [^\n]*missing/t.json is invalid: expected a path in an existing directory"
             gemm --backend ptx --m 8 --n 8 --k 8 --trace "${WORK}/missing/t.json")
elseif(CASE STREQUAL "guard_run_trace")
  # tcgen run --trace onto the running script, or onto a file among its arguments, is refused;
  # the script runs not at all, and is left as it was.
  file(WRITE "${WORK}/run.sh" "#!/bin/sh\necho ran > \"$(dirname \"$0\")/ran.txt\"\n")
  file(CHMOD "${WORK}/run.sh" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  file(COPY_FILE "${WORK}/run.sh" "${WORK}/run.copy")
  refused("--trace = [^\n]*run.sh is invalid: expected a file the run does not read: it is PROGRAM's"
          run --trace "${WORK}/run.sh" -- "${WORK}/run.sh")
  refused("--trace = [^\n]*run.sh is invalid: expected a file the run does not read: it is ARGS's"
          run --trace "${WORK}/run.sh" -- sh "${WORK}/run.sh")
  unchanged("${WORK}/run.sh" "${WORK}/run.copy")
  # A trace that cannot be written: exit 2 at once (3 could be the program's own), not after the run.
  refused("--trace = /nonexistent/t.json is invalid: expected a path in an existing directory"
          run --trace /nonexistent/t.json -- "${WORK}/run.sh")
  file(WRITE "${WORK}/t.json" "kept")
  refused("--trace = [^\n]*t.json is invalid: expected a new file: it exists [(]--force replaces it[)]"
          run --trace "${WORK}/t.json" -- "${WORK}/run.sh")
  refused("--force = [(]given[)] is invalid: expected --trace" run --force -- "${WORK}/run.sh")
  if(EXISTS "${WORK}/ran.txt")
    die("a refused tcgen run ran the program")
  endif()
elseif(CASE STREQUAL "guard_force")
  # Every output replaces an existing file only with --force, the .npy ones and the others alike.
  file(WRITE "${WORK}/notes.txt" "mine")
  file(COPY_FILE "${WORK}/notes.txt" "${WORK}/notes.copy")
  refused("--out = [^\n]*notes.txt is invalid: expected a new file: it exists [(]--force replaces it[)]"
          gemm --m 8 --n 8 --k 8 --out "${WORK}/notes.txt")
  refused("--lse = [^\n]*notes.txt is invalid: expected a new file: it exists"
          fmha --seq-q 64 --seq-k 64 --head-dim 64 --lse "${WORK}/notes.txt")
  refused("--svg = [^\n]*notes.txt is invalid: expected a new file: it exists"
          layout smem --dtype bf16 --rows 8 --cols 64 --svg "${WORK}/notes.txt")
  unchanged("${WORK}/notes.txt" "${WORK}/notes.copy")
  ok(gemm --m 8 --n 8 --k 8 --out "${WORK}/o.npy")
  refused("--out = [^\n]*o.npy is invalid: expected a new file" gemm --m 8 --n 8 --k 8 --out "${WORK}/o.npy")
  ok(gemm --m 8 --n 8 --k 8 --out "${WORK}/notes.txt" --force)
  ok(layout smem --dtype bf16 --rows 8 --cols 64 --svg "${WORK}/notes.txt" --force)
  ok(gemm --m 8 --n 8 --k 8 --out /dev/null)  # a device takes any number of writes: no --force needed
  refused("--force = [(]given[)] is invalid: expected an output whose existing file it replaces: --out, --trace or --save-inputs"
          gemm --m 8 --n 8 --k 8 --force)
  refused("--force = [(]given[)] is invalid: expected an output whose existing file it replaces: --svg"
          layout tmem --m 128 --n 64 --cta-group 1 --force)
  # --save-inputs naming a file says so, not that the file "does not exist".
  unreadable("--save-inputs = [^\n]*notes.txt is invalid: expected a directory to save the inputs in: it is a file"
             gemm --m 8 --n 8 --k 8 --save-inputs "${WORK}/notes.txt")
elseif(CASE STREQUAL "careless_did_you_mean")
  refused("option = --casual .*; did you mean --causal[?]" fmha --casual)
  refused("option = --seq_q .*; did you mean --seq-q[?]" fmha --seq_q 8)
  refused("option = --seq_q .*; did you mean --seq-q[?]" sparse-decode --seq_q 8)
  refused("option = --M .*; did you mean --m[?]" gemm --M 8)
  refused("verb = fmah .*; did you mean fmha[?]" fmah)
  # A letter missing or one too many: the lengths differ by one.
  refused("option = --caual .*; did you mean --causal[?]" fmha --caual)
  refused("option = --dtypes .*; did you mean --dtype[?]" gemm --dtypes bf16)
  # Two letters missing: the lengths differ by two, still a near miss.
  refused("option = --timng-sm .*; did you mean --timing-sms[?]" gemm --timng-sm 4)
elseif(CASE STREQUAL "careless_values")
  # --timing-sms 0: its range first, whatever else is missing.
  refused("--timing-sms = 0 is invalid: expected a decimal integer from 1 to 148" fmha --timing-sms 0)
  refused("--timing-sms = 0 is invalid: expected a decimal integer from 1 to 148" gemm --m 8 --n 8 --k 8 --backend ptx --timing-sms 0)
  # A PTX file without the kernel is a bad input (exit 2), not a failed check (exit 1).
  file(WRITE "${WORK}/other.ptx" ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry other()\n{\n  ret;\n}\n")
  run(gemm --m 8 --n 8 --k 8 --backend ptx --ptx "${WORK}/other.ptx")
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^tcgen: kernel = tcgen::gemm::gemm_kernel<[^\n]* is invalid: [^\n]*other[.]ptx[^\n]*\n$")
    die("expected exit 2 naming the kernel other.ptx lacks")
  endif()
  # A Q of 1e30 overflows the kernel's arithmetic: the diagnosis says so, not a missing wait.
  execute_process(COMMAND python3 -c "
import struct, sys
h = \"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 64, 64), }\"
h += ' ' * ((64 - (10 + len(h) + 1) % 64) % 64) + '\\n'
open(sys.argv[1], 'wb').write(b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<8192f', *[1e30] * 8192))
" "${WORK}/q.npy" RESULT_VARIABLE py)
  if(NOT py EQUAL 0)
    die("python3 could not write the 1e30 Q")
  endif()
  file(MAKE_DIRECTORY "${WORK}/kv")
  ok(fmha --seq-q 64 --seq-k 64 --head-dim 64 --no-reference --quiet --save-inputs "${WORK}/kv")
  run(fmha --q "${WORK}/q.npy" --k "${WORK}/kv/k.npy" --v "${WORK}/kv/v.npy" --quiet)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "diagnosis: [0-9]+ of [0-9]+ values of the result are inf or NaN where the fp64 reference's are finite: an overflow")
    die("expected exit 1 and the overflow named")
  endif()
  if(err MATCHES "written at all|ordering error")
    die("the overflow is blamed on synchronisation")
  endif()
  # --watchdog N: the livelock watchdog's count, 0 (never) or more, on every host-model verb.
  run(gemm --m 8 --n 8 --k 8 --watchdog -1)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^tcgen: --watchdog = \"-1\" is invalid: expected a decimal integer from 0")
    die("expected exit 2 naming --watchdog's range, got ${rc}: ${err}")
  endif()
  ok(gemm --m 8 --n 8 --k 8 --backend ptx --watchdog 0 --quiet)
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()
