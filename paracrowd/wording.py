"""Counts in words, as every page, message and command prints them: "1 description",
"2 descriptions", "1,204 descriptions". One place, so that no count reads "1 HITs"."""


def counted(number: int, singular: str, plural: str = "") -> str:
    """``number`` with its noun, grouped by thousands; the plural is ``singular`` + "s"
    unless given ("1 analysis", "2 analyses")."""
    noun = singular if number == 1 else (plural or f"{singular}s")
    return f"{number:,} {noun}"
