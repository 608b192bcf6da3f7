from django import template

from collector.provenance import signals_labels
from review.models import WorkerSignals
from review.worker_signals import percent, times

register = template.Library()

PERCENT = {"spelling", "shape", "language", "duplicates", "typing", "rejections"}


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
        return times(signals.median_time_ratio)
    raise ValueError(f"no signal {key!r}")


@register.filter
def flagged(signals, key: str) -> bool:
    return bool(signals) and key in signals.flags


@register.inclusion_tag("review/typing_provenance.html")
def typing_provenance(work):
    """How a description's or paraphrase's text came into the box: its signals in words (a
    text without a record reads "not recorded", never clean) and the page's counts."""
    return {
        "signals": list(zip(work.typing_signals, signals_labels(work.typing_signals), strict=True)),
        "flagged": work.typing_flagged,
        "record": work.typing_record,
        "id": work.pk,
    }
