# %% [markdown]
# # A tour of sglang-logscope in a notebook
#
# Percent-cell script: open it in Jupyter (jupytext), VS Code or PyCharm as a notebook, or run
# it as a plain script (`python docs/examples/notebook_tour.py`); `tests/test_docs.py` runs it.
# The log is a real one from `fixtures/real/069` (Qwen3.6-27B AWQ, TP 2 on 2x Radeon AI PRO
# R9700, a 256K-context smoke test: boot, 78 decode batches, then killed by the test script).
# Plotting needs matplotlib: `pip install 'sglang-logscope[plot]'`.

# %%
from pathlib import Path

import sglang_logscope as ls


def find(relative: str) -> Path:
    """``relative`` under the current folder or one of its parents (the repository root)."""
    for folder in (Path.cwd(), *Path.cwd().parents):
        if (folder / relative).is_file():
            return folder / relative
    raise FileNotFoundError(relative)


log = ls.read_log(find("fixtures/real/069/server.log"))
log  # noqa: B018 -- in Jupyter: a table of the runs and event kinds (Log._repr_html_)

# %%
run = log.runs[-1]
print(f"{len(log.events)} events, {len(log.runs)} run(s)")
print(f"run {run.index}: {run.started_at} -> {run.ended_at}, {run.outcome.value}")

# %% [markdown]
# ## The events as a DataFrame
#
# One row per event; `kind`, `level` and `rank` are categoricals, every scalar field of a
# message is its own typed column (here the decode batches' `full_token`, `gen_throughput`).

# %%
df = log.to_dataframe()
decode = df[df["kind"] == "decode_batch"].set_index("timestamp")
print(decode[["rank", "running_req", "full_token", "gen_throughput"]].describe())

# %% [markdown]
# ## KV tokens in use and decode throughput over time

# %%
try:
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
    print(
        "matplotlib is not installed: skipping the plots. "
        "Install it with: pip install 'sglang-logscope[plot]'"
    )

# %%
if plt is not None:
    fig, (ax_tokens, ax_speed) = plt.subplots(2, 1, sharex=True, figsize=(8, 5))
    for rank, rows in decode.groupby("rank", observed=True):
        ax_tokens.plot(rows.index, rows["full_token"], label=str(rank))
        ax_speed.plot(rows.index, rows["gen_throughput"], label=str(rank))
    ax_tokens.set_ylabel("KV tokens in use")
    ax_speed.set_ylabel("decode token/s")
    ax_speed.set_xlabel("time")
    ax_tokens.legend()
    fig.autofmt_xdate()
    fig.tight_layout()

# %% [markdown]
# ## The memory budget of this run
#
# SGLang's startup arithmetic recomputed from the run's own numbers (free memory before the
# weights, the weights, the banner's arguments); `reported` holds what SGLang printed.
# In Jupyter the budget renders as the per-GPU stacked bar of `logscope report`.

# %%
budget = ls.budget_for_run(run)
print(
    f"fits: {budget.fits}; KV pool {budget.per_gpu.kv_tokens:,} tokens predicted, "
    f"{budget.reported['kv_tokens'] if budget.reported else '?':,} printed by SGLang"
)
budget  # noqa: B018 -- in Jupyter: the per-GPU stacked bar (Budget._repr_html_)
