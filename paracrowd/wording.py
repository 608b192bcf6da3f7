"""Counts in words, as every page, message and command prints them: "1 description",
"2 descriptions", "1,204 descriptions". One place, so that no count reads "1 HITs"."""


def counted(number: int, singular: str, plural: str = "") -> str:
    """``number`` with its noun, grouped by thousands; the plural is ``singular`` + "s"
    unless given ("1 analysis", "2 analyses")."""
    noun = singular if number == 1 else (plural or f"{singular}s")
    return f"{number:,} {noun}"


def shortened(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: whole when it fits, else cut at the last word
    boundary that fits and ended with "…", so that a sentence is never cut mid-word without a
    sign that it goes on (a single word longer than the limit is cut, with "…")."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    kept = text[: limit - 1]
    # Cut inside a word (the next character is a letter or digit): back to its start.
    if text[limit - 1].isalnum() and " " in kept:
        kept = kept[: kept.rindex(" ")]
    return kept.rstrip(" ,;:.-–—") + "…"
