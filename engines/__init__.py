"""Pure-Python game engines: rules, views and bots, with no I/O."""
