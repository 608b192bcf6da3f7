"""What a browser is shown: the task page a form answers with, and the cells of a table."""

import re
from html.parser import HTMLParser

CANONICAL = re.compile(r'<link rel="canonical" href="([^"]+)">')


def task_shown(response) -> str:
    """The address of the task page ``response`` is. Next task, *Skip* and *submit and next*
    answer with the page itself, which names its own address for the address bar."""
    assert response.status_code == 200, f"answered {response.status_code}, not a task page"
    found = CANONICAL.search(response.content.decode())
    assert found, "the page names no address of its own"
    return found.group(1)


class _TableReader(HTMLParser):
    """The rows of the table with id ``table_id``, each a list of its cells' text."""

    def __init__(self, table_id: str):
        super().__init__()
        self.table_id = table_id
        self.depth = 0  # tables open inside the one read, itself included
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and (self.depth or dict(attrs).get("id") == self.table_id):
            self.depth += 1
        elif self.depth == 1 and tag == "tr":
            self.rows.append([])
        elif self.depth == 1 and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth -= 1
        elif self.depth == 1 and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def table_column(page: str, table_id: str, header: str) -> list[str]:
    """The text of each cell under ``header`` in the table ``table_id`` of ``page``, unescaped
    as a browser shows it."""
    reader = _TableReader(table_id)
    reader.feed(page)
    assert reader.rows, f"the page has no table {table_id!r}"
    headers, *rows = reader.rows
    column = headers.index(header)
    # A row of one cell across the table says it is empty ("No … yet."): no value of a column.
    return [row[column] for row in rows if len(row) == len(headers)]
