"""Launch text → :class:`~sglang_logscope.command.parse.LaunchCommand`: shell words (``shell``),
wrappers peeled off (``unwrap``), argv read like SGLang's argparse (``argv``) against the
argument table of a release (``argtable``); ``parse`` puts them together."""
