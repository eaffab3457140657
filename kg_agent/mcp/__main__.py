"""``python -m kg_agent.mcp [options]``: the same as ``kg-agent mcp [options]``."""

import sys

from kg_agent.mcp.command import main

sys.exit(main())
