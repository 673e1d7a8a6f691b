#!/bin/bash
# The fleet benchmark (benchmarks/fleet.py) of two source trees, interleaved, on a machine with
# no network (the lent 16-core one): each argument is one round's `benchmarks.fleet` options,
# run in the base tree then in the other (ORDER="mine base" swaps them).
#
#   bash benchmarks/fleet_ab.sh "--workers 16" "--workers 16" "--workers 16"
#
# It reads a bundle, BUNDLE (default .wheelhouse/h30), made beforehand where there is network:
#   wheels/            pip download -d wheels "dask[distributed]" regex numpy pandas typer rich \
#                        python-dateutil pyyaml  (for the machine's Python)
#   base.tgz mine.tgz  git archive --format=tar.gz REV (benchmarks/fleet.py the same in both)
#   _rowscan.abi3.so   the C lane, built by `make install` (abi3: any CPython >= 3.10)
set -u
B=${BUNDLE:-$PWD/.wheelhouse/h30}
python3 -m venv /tmp/fleet-ab-venv && /tmp/fleet-ab-venv/bin/pip install -q --no-index \
  --find-links "$B/wheels" "dask[distributed]" regex numpy pandas typer rich python-dateutil pyyaml || exit 1
for n in base mine; do
  mkdir -p "/tmp/fleet-ab/$n" && tar xzf "$B/$n.tgz" -C "/tmp/fleet-ab/$n" &&
    cp "$B/_rowscan.abi3.so" "/tmp/fleet-ab/$n/sglang_logscope/parse/" || exit 1
done
for options in "$@"; do
  for n in ${ORDER:-base mine}; do
    echo "== $n $options"; cat /proc/loadavg
    # shellcheck disable=SC2086  # the options are words
    (cd "/tmp/fleet-ab/$n" && PYTHONPATH="/tmp/fleet-ab/$n" timeout 280 \
      /tmp/fleet-ab-venv/bin/python -m benchmarks.fleet --files "${FILES:-10000}" $options 2>&1 |
      grep -E "files,|stream:|Error" | head -4)
  done
done
