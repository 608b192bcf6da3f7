"""gunicorn as deployed. bin/run, the compose files and the Dockerfile start gunicorn in the
project's root, where it reads this file; bench/worker_loop.py measures it (README,
"Production", has the figures behind the choice).

Threaded workers, two processes per core and one more, two threads each: a worker-loop
request spends much of its time waiting on a PostgreSQL commit or on Redis, and a second
thread serves another request meanwhile, where a sync worker sat idle (more tasks/s, less CPU
per task). More threads per process made the slowest requests slower under a burst (they
queue for the process's interpreter lock), so the processes stay many and the threads few.
Each thread holds its own database connection: workers x threads (10 on two cores) must stay
well below PostgreSQL's max_connections. Every value can be set from the environment instead.

The access log leaves out query strings (they carry the platforms' participant ids) and no
response has a Server header: both below.
"""

import os
from pathlib import Path

from gunicorn import glogging
from gunicorn.http import wsgi

cores = len(os.sched_getaffinity(0))  # as nproc counts them: a container's share, not the host's
worker_class = os.environ.get("WEB_WORKER_CLASS", "gthread")
workers = int(os.environ.get("WEB_WORKERS", 2 * cores + 1))
threads = int(os.environ.get("WEB_THREADS", 2))
# Seconds an idle connection stays open for the browser's next request (threaded workers).
keepalive = int(os.environ.get("WEB_KEEPALIVE", 10))
# gunicorn's largest request line: the site refuses addresses over 4,094 characters itself, in
# its own words (paracrowd.request_text.ADDRESS_MAX); only longer lines get gunicorn's 414.
limit_request_line = 8190
# gunicorn's control socket (for gunicornc) belongs to this site: gunicorn's default,
# $XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl, is one path for every gunicorn a
# user runs, and each one started takes the socket over from the last (and removes it when it
# stops). Under the checkout's var/run by default; WEB_CONTROL_SOCKET names another path (one
# per process when a machine runs several web processes of one checkout).
control_socket = os.environ.get("WEB_CONTROL_SOCKET") or str(
    Path(__file__).resolve().parent / "var" / "run" / "gunicorn.ctl"
)


class AccessLog(glogging.Logger):
    """gunicorn's logger with no query string in the access log: a crowd platform's arrival
    carries the participant's and the session's ids in its query (PROLIFIC_PID, SESSION_ID, a
    study link's parameters), enough to go on with that participant's session. The request
    line keeps the path as it was sent (percent-encoded: a path cannot forge a log line, which
    the decoded %(U)s could), and the referrer loses its query and fragment too, since our own
    pages refer to the arrival address. Leans on ``Logger.atoms`` of the gunicorn pinned in
    requirements.txt; tests/paracrowd/test_web_server.py checks it against a running gunicorn.
    """

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        path = _without_query(environ.get("RAW_URI") or "")
        atoms["r"] = f"{environ.get('REQUEST_METHOD')} {path} {environ.get('SERVER_PROTOCOL')}"
        atoms["q"] = "-"
        atoms["f"] = _without_query(atoms["f"])
        # The same values under the names a custom access_log_format may ask for them by.
        for name in ("{query_string}e", "{request_uri}e", "{raw_uri}e"):
            atoms.pop(name, None)
        if "{referer}i" in atoms:
            atoms["{referer}i"] = atoms["f"]
        return atoms


def _without_query(address: str) -> str:
    return address.split("?", 1)[0].split("#", 1)[0]


logger_class = AccessLog


# No Server header: it tells a scanner which server to try its exploits for, and gunicorn has
# no setting for it (benoitc/gunicorn#825); it writes the header itself, after the application
# has answered, so no Django middleware can take it out. This replaces the method that writes
# the HTTP/1 headers (HTTP/2 is not served: TLS ends at the proxy) with one that leaves that
# line out; it leans on ``Response.default_headers`` of the gunicorn pinned in requirements.txt,
# and tests/paracrowd/test_web_server.py checks it against a running gunicorn. Applied once,
# however often gunicorn reads this file (it reads it again on SIGHUP).
if not getattr(wsgi.Response.default_headers, "without_server", False):
    _default_headers = wsgi.Response.default_headers

    def _default_headers_without_server(self):
        return [line for line in _default_headers(self) if not line.startswith("Server:")]

    _default_headers_without_server.without_server = True
    wsgi.Response.default_headers = _default_headers_without_server
