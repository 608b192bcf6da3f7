from django import template

register = template.Library()


@register.filter
def cents(amount: int) -> str:
    """Integer cents as dollars: 105 → "$1.05". Money is never a float."""
    sign = "-" if amount < 0 else ""
    dollars, remainder = divmod(abs(int(amount)), 100)
    return f"{sign}${dollars:,}.{remainder:02d}"
