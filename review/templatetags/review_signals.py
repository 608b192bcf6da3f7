from django import template

from review.models import WorkerSignals
from review.worker_signals import percent

register = template.Library()

PERCENT = {"spelling", "shape", "language", "duplicates", "rejections"}


register.filter("percent", percent)


@register.simple_tag
def signal_figure(signals, key: str) -> str:
    """The figure of one signal as the queue and the panel show it."""
    if not signals:
        return "—"
    if key in PERCENT:
        return percent(getattr(signals, WorkerSignals.COLUMNS[key]))
    if key in ("bleu", "pinc"):
        mine = getattr(signals, f"mean_{key}")
        theirs = getattr(signals, f"cluster_mean_{key}")
        if mine is None:
            return "—"
        return f"{mine:.1f}" + (f" vs {theirs:.1f}" if theirs is not None else "")
    if key == "speed":
        ratio = signals.median_time_ratio
        return "—" if ratio is None else f"{ratio:.1f}×"
    raise ValueError(f"no signal {key!r}")


@register.filter
def flagged(signals, key: str) -> bool:
    return bool(signals) and key in signals.flags
