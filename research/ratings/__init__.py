"""Human ratings of paraphrases, as Chen & Dolan (2011, §5) collected them: batches of
(source, candidate) items, rated by N judges each on semantic equivalence, dissimilarity and
overall quality (1–4, 4 best), through the shared HIT machinery; agreement between judges;
exports; and ``rated_items`` for the correlation analysis."""

from .selectors import JudgeRating, RatedItem, rated_items

__all__ = ["JudgeRating", "RatedItem", "rated_items"]
