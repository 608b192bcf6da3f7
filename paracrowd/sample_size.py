"""How small a sample a statistic may rest on before the page must say so: one rule for every
page that prints a figure computed from the corpus (a comparison's p-value, the correlation
and α between judges, a judge's reliability, the agreement between annotators).

Each figure is shown with the number it rests on, "(n = N)", and below ``MINIMUM`` with a
visible warning in the words of the thing counted ("fewer than 30 pairs: read as anecdote").
Templates load it as ``{% load sample_size %}`` (registered in settings.TEMPLATES).
"""

from django import template
from django.contrib.humanize.templatetags.humanize import intcomma
from django.utils.html import format_html

# Why 30: from about 30 observations the mean of bounded, skewed scores is close enough to
# normal for an interval or a correlation to mean what it says; below it an r of −1 or a
# p of 0.001 says more about the handful of cases than about the corpus (see
# research.system_scoring for what it does to a paired bootstrap).
MINIMUM = 30

register = template.Library()


def small_sample_warning(n: int, unit: str) -> str | None:
    """The warning a figure over ``n`` ``unit`` (plural: "pairs", "ratings") carries, or None
    when there are enough."""
    if n >= MINIMUM:
        return None
    return f"fewer than {MINIMUM} {unit}: read as anecdote"


@register.simple_tag
def sample_size(n, unit: str):
    """ "(n = N)" after a figure and, below the minimum, the warning beside it."""
    n = int(n or 0)
    warning = small_sample_warning(n, unit)
    if warning is None:
        return format_html('<span class="sample-size">(n = {})</span>', intcomma(n))
    return format_html(
        '<span class="sample-size">(n = {}) <strong class="small-sample">{}</strong></span>',
        intcomma(n),
        warning,
    )
