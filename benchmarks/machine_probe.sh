#!/bin/bash
# A machine's plain speed, for comparing lent machines with this one (docs/performance.md,
# "Session 16: the lent machine's cores"): a loop of 5 M additions, 300,000 small dicts made,
# and 200 MB touched a page at a time (the cost of a page fault), three rounds, in process.
#   bash benchmarks/machine_probe.sh            (P=/path/to/python to pick the interpreter)
P=${P:-python3}
$P --version
for i in 1 2 3; do
$P - <<'PY'
import time, resource
r0 = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter(); c = time.process_time()
b = bytearray(200 << 20)  # calloc: pages untouched
for off in range(0, len(b), 4096):
    b[off] = 1
touch = time.perf_counter() - t; ctouch = time.process_time() - c
r1 = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter(); c = time.process_time()
objs = [{"a": i, "b": str(i)} for i in range(300_000)]
alloc = time.perf_counter() - t; calloc = time.process_time() - c
r2 = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter(); s = 0
for i in range(5_000_000): s += i
spin = time.perf_counter() - t
print(f"touch 200 MB: {touch*1000:.0f} ms wall, {ctouch*1000:.0f} ms cpu, {r1.ru_minflt-r0.ru_minflt} faults ({ctouch/(max(1,r1.ru_minflt-r0.ru_minflt))*1e6:.2f} us each); "
      f"300k dicts: {alloc*1000:.0f} ms ({r2.ru_minflt-r1.ru_minflt} faults); spin 5M: {spin*1000:.0f} ms")
PY
done
