class WorkRefused(Exception):
    """The request cannot be honoured; the message is written for the worker or admin."""
