"""An app's webhook endpoints and their deliveries (docs/webhooks.md)."""
