from django import template
from django.utils.html import format_html

from collector.canary import canary_line

register = template.Library()


@register.simple_tag
def canary(assignment=None):
    """The invisible line of a task's instructions (collector.canary), hidden from screen
    readers; the campaign's marker when the assignment came from one."""
    campaign_id = getattr(assignment, "campaign_id", None)
    return format_html(
        '<span class="canary" aria-hidden="true">{}</span>', canary_line(campaign_id=campaign_id)
    )
