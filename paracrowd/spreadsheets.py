"""Text that a spreadsheet would run as a formula.

Excel, LibreOffice and Google Sheets treat a cell starting with = + - or @ as a formula (tab
and carriage return in front are skipped first), so a CSV or TSV opened in one can run
`=HYPERLINK(...)` that a worker typed. The corpus keeps no such text: descriptions are refused
at submission and at import. Files people open in spreadsheets also escape defensively, with a
leading apostrophe, anything that slipped in before that rule.
"""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def starts_like_a_formula(text: str) -> bool:
    return text.lstrip(" ").startswith(FORMULA_STARTS)


def spreadsheet_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it literally: a leading apostrophe when it would
    otherwise be read as a formula (spreadsheets hide the apostrophe)."""
    return "'" + text if starts_like_a_formula(text) else text
