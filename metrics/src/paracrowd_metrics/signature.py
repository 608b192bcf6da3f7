"""Signatures: a short string recording exactly how a score was computed.

Every stored score keeps one, so scores computed differently are never compared by mistake.
A BLEU signature with default settings is sacrebleu's own, verbatim, e.g.
``nrefs:39|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0``. What sacrebleu leaves
out is added: ``order:N`` when the highest n-gram order is not 4 (sacrebleu does not
record it), and ``tok:char+spaces`` when character n-grams keep spaces.
"""

from sacrebleu import __version__ as sacrebleu_version

from paracrowd_metrics.bleu import SMOOTH_DEFAULTS, check_smooth
from paracrowd_metrics.pinc import PINC_MAX_ORDER
from paracrowd_metrics.tokens import CHARACTER, WORD_MAX_ORDER, check_tokenize, default_max_order


def _tokenizer_field(tokenize: str, keep_spaces: bool) -> str:
    check_tokenize(tokenize)
    return f"{tokenize}+spaces" if tokenize == CHARACTER and keep_spaces else tokenize


def bleu_signature(
    *,
    nrefs: int | str,
    tokenize: str = "13a",
    max_order: int | None = None,
    smooth: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
    effective_order: bool = True,
    keep_spaces: bool = False,
) -> str:
    """Return the signature of a BLEU score (``nrefs`` is "var" when the count varies)."""
    check_smooth(smooth)
    if max_order is None:
        max_order = default_max_order(tokenize)
    smoothing = smooth
    if SMOOTH_DEFAULTS[smooth] is not None:
        value = SMOOTH_DEFAULTS[smooth] if smooth_value is None else smooth_value
        smoothing += f"[{value:.2f}]"
    fields = [
        f"nrefs:{nrefs}",
        f"case:{'lc' if lowercase else 'mixed'}",
        f"eff:{'yes' if effective_order else 'no'}",
        f"tok:{_tokenizer_field(tokenize, keep_spaces)}",
    ]
    if max_order != WORD_MAX_ORDER:
        fields.append(f"order:{max_order}")
    fields += [f"smooth:{smoothing}", f"version:{sacrebleu_version}"]
    return "|".join(fields)


def pinc_signature(
    *,
    nsources: int | str,
    tokenize: str = "13a",
    max_order: int = PINC_MAX_ORDER,
    keep_spaces: bool = False,
) -> str:
    """Return the signature of a PINC score (``nsources``: how many sources it averages).

    E.g. ``metric:pinc|nsrc:39|case:lc|tok:13a|order:4|version:2.6.0``; the version is
    sacrebleu's because its tokenizers define the n-grams.
    """
    return "|".join(
        [
            "metric:pinc",
            f"nsrc:{nsources}",
            "case:lc",
            f"tok:{_tokenizer_field(tokenize, keep_spaces)}",
            f"order:{max_order}",
            f"version:{sacrebleu_version}",
        ]
    )


_SIGNATURES = {"bleu": bleu_signature, "pinc": pinc_signature}


def signature(metric: str = "bleu", **options) -> str:
    """Return the signature of a ``metric`` ("bleu" or "pinc") score; see the two above."""
    try:
        make_signature = _SIGNATURES[metric]
    except KeyError:
        raise ValueError(f"No signature for metric {metric!r}") from None
    return make_signature(**options)
