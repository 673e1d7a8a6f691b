#!/usr/bin/env bash
# The real-GPU check (tests/gpu/test_live.py) as run on the lent GPU machine: no network there,
# so nothing is installed; the package runs from the working tree (PYTHONPATH=.) with the image's
# torch, nvidia-ml-py, typer, rich, regex, pandas, python-dateutil and pyyaml.
# Outputs go to $OUT (default benchmarks/out/live): env.txt, pytest.txt, transcript.txt and
# readings.tar.gz (raw NVML / nvidia-smi readings: idle, holder, after).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-benchmarks/out/live}"
mkdir -p "$out"
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 LOGSCOPE_LIVE_OUT="$out"
{
  nvidia-smi
  python3 -c 'import torch, pynvml, typer, rich, regex, pandas, dateutil, yaml
print("torch", torch.__version__, "cuda devices", torch.cuda.device_count())
print("typer", typer.__version__, "pandas", pandas.__version__)'
  python3 -m pip show nvidia-ml-py 2>/dev/null | head -2
  uname -a
  ls -l /proc/self/ns/pid
} >"$out/env.txt" 2>&1
python3 -m pytest tests/gpu -m gpu -o addopts= -v -s -p no:cacheprovider 2>&1 | tee "$out/pytest.txt"
rc=${PIPESTATUS[0]}
if [ -d "$out/fixtures" ]; then
  tar -C "$out" -czf "$out/readings.tar.gz" fixtures && rm -rf "$out/fixtures"
fi
rm -f "$out/holder.ready"
exit "$rc"
