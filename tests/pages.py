"""What a worker's browser is shown in answer to a form."""

import re

CANONICAL = re.compile(r'<link rel="canonical" href="([^"]+)">')


def task_shown(response) -> str:
    """The address of the task page ``response`` is. Next task, *Skip* and *submit and next*
    answer with the page itself, which names its own address for the address bar."""
    assert response.status_code == 200, f"answered {response.status_code}, not a task page"
    found = CANONICAL.search(response.content.decode())
    assert found, "the page names no address of its own"
    return found.group(1)
