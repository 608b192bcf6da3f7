"""Connectors to crowd platforms: how ParaCrowd publishes work on a platform, reads back what
workers did there, and pays them through it. Each platform's module wraps its API; nothing
here touches the database, so the services decide what is stored and when."""
