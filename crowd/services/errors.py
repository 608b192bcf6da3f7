class WorkRefused(Exception):
    """The request cannot be honoured; the message is written for the worker or admin."""


class ArrivalsExceeded(WorkRefused):
    """Too many new platform workers arrived from one network address within the hour."""
