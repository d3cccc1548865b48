"""The cardtable HTTP service: Flask app, Redis store and the CLI."""
