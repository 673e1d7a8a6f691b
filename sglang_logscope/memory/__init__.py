"""SGLang's memory arithmetic: budgets per release era, hybrid state, spec draft, OOM verdicts.

``eras`` (per-release rules) → ``estimates`` / ``models`` / ``gpus`` (inputs) → ``solver`` →
``budget`` (one budget) / ``from_run`` (a run's own figures) → ``suggest`` / ``verdict``.
"""
