"""Text that a spreadsheet would run as a formula.

Excel, LibreOffice and Google Sheets treat a cell starting with = + - or @ as a formula (tab
and carriage return in front are skipped first), so a CSV or TSV opened in one can run
`=HYPERLINK(...)` that a worker typed. The corpus keeps no such text: descriptions are refused
at submission and at import. Files people open in spreadsheets also escape defensively, with a
leading apostrophe, anything that slipped in before that rule.
"""

from django.db.models import Case, CharField, Func, IntegerField, Value, When
from django.db.models.functions import Concat, LTrim
from django.db.models.lookups import In

# Single characters, so that SQL can compare a cell's first character code with them.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def starts_like_a_formula(text: str) -> bool:
    return text.lstrip(" ").startswith(FORMULA_STARTS)


def spreadsheet_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it literally: a leading apostrophe when it would
    otherwise be read as a formula (spreadsheets hide the apostrophe)."""
    return "'" + text if starts_like_a_formula(text) else text


def spreadsheet_cell_sql(expression) -> Case:
    """``spreadsheet_cell`` in SQL, over a text ``expression``, for files PostgreSQL writes
    itself (COPY): the same rule from the same ``FORMULA_STARTS``. It compares character codes,
    the cheapest test there is on every row, and trims leading spaces only when there are
    some (PostgreSQL's one-argument LTRIM strips spaces only, as ``lstrip(" ")`` does)."""
    starts = [ord(start) for start in FORMULA_STARTS]
    return Case(
        When(
            In(_first_code(expression), [*starts, ord(" ")])
            & In(_first_code(LTrim(expression)), starts),
            then=Concat(Value("'"), expression, output_field=CharField()),
        ),
        default=expression,
        output_field=CharField(),
    )


def _first_code(expression) -> Func:
    return Func(expression, function="ASCII", output_field=IntegerField())
