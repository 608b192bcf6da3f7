from django import template

from ..services import ledger_entry_platform_payment

register = template.Library()


@register.filter
def cents(amount: int) -> str:
    """Integer cents as dollars: 105 → "$1.05". Money is never a float."""
    sign = "-" if amount < 0 else ""
    dollars, remainder = divmod(abs(int(amount)), 100)
    return f"{sign}${dollars:,}.{remainder:02d}"


@register.filter
def platform_payment(entry) -> str:
    """Whether a crowd platform paid a ledger entry: pending, paid at a time, failed (why), or
    not through a platform. Load entries with ``select_related("platform_payment")``."""
    return ledger_entry_platform_payment(entry)
