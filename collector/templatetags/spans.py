from django import template

from collector.spans import format_time

register = template.Library()


@register.filter
def clock(seconds) -> str:
    """Seconds as a video time: 75.5 → "1:15.5"."""
    return "" if seconds is None else format_time(seconds)
