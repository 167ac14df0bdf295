#!/bin/sh
# ptxas in name only, for Triton under tcgen run (TRITON_PTXAS_BLACKWELL_PATH):
# the "cubin" it writes is the PTX it was given, which tcgen's
# cuModuleLoadData runs on the host model. Triton picks the PTX ISA version
# from the CUDA release this reports: 13.0's (PTX ISA 9.0), which tcgen reads.
out=
in=
while [ $# -gt 0 ]; do
  case "$1" in
    --version)
      echo "ptxas: NVIDIA (R) Ptx optimizing assembler (tcgen pass-through: writes the PTX it is given)"
      echo "Cuda compilation tools, release 13.0, V13.0.88"
      exit 0 ;;
    -o) out=$2; shift ;;
    *.ptx) in=$1 ;;
  esac
  shift
done
if [ -z "$in" ] || [ -z "$out" ]; then
  echo "tcgen's ptxas pass-through: expected FILE.ptx and -o OUTPUT" >&2
  exit 1
fi
exec cp "$in" "$out"
