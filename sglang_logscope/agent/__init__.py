"""The agent's way in: logscope's checks as MCP tools (``logscope mcp``, docs/agents.md).

``tools``: each tool as a library call that returns its JSON document (no MCP in it);
``server``: the tool table (names, input and output schemas) served over stdio with the
official ``mcp`` SDK, an optional extra (``pip install 'sglang-logscope[agent]'``).
"""
