"""Every renderer: console text (``text``, ``views``), budget bars (``budget``), the HTML report
(``html``), Jupyter HTML (``notebook``) and live watch sinks (``live``). Imported only by the CLI and
by name from the ``_repr_html_`` hooks (``_html.notebook_html``, its table ``NOTEBOOK_VIEWS``);
nothing below imports it."""
