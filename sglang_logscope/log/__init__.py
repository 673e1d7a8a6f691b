"""Events → runs → :class:`~sglang_logscope.log.reader.Log`: run splitting and outcomes
(``runs``), the reader and summaries (``reader``), the last run of a big file (``tail``),
memory figures a run printed (``figures``) and DataFrames (``frames``)."""
