"""An app's matches and its players' data, for its backend with its key (docs/integrating.md)."""
