"""Every renderer: console text (``text``, ``views``), budget bars (``budget``), the HTML report
(``html``), Jupyter HTML (``repr``) and live watch sinks (``live``). Imported only by the CLI and
by the ``_repr_html_`` hooks (through ``sglang_logscope._html``); nothing below imports it."""
