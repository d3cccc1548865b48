"""RQ jobs: bot turns and turn clocks, run outside the HTTP request path."""
