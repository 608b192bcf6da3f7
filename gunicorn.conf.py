"""gunicorn as deployed. bin/run, the compose files and the Dockerfile start gunicorn in the
project's root, where it reads this file; bench/worker_loop.py measures it (README,
"Production", has the figures behind the choice).

Threaded workers, one process per core and one more, eight threads each: a worker-loop request
spends most of its time waiting on a PostgreSQL commit or Redis, and with threads the same
process serves another request meanwhile, where a sync worker sat idle; sync workers also
closed the connection after every response, so each request paid for a new one. Each thread
holds its own database connection: workers x threads (24 on two cores) must stay well below
PostgreSQL's max_connections. Every value can be set from the environment instead.
"""

import os

cores = len(os.sched_getaffinity(0))  # as nproc counts them: a container's share, not the host's
worker_class = os.environ.get("WEB_WORKER_CLASS", "gthread")
workers = int(os.environ.get("WEB_WORKERS", cores + 1))
threads = int(os.environ.get("WEB_THREADS", 8))
# Seconds an idle connection stays open for the browser's next request (threaded workers).
keepalive = int(os.environ.get("WEB_KEEPALIVE", 10))
