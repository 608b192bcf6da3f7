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
"""

import os

cores = len(os.sched_getaffinity(0))  # as nproc counts them: a container's share, not the host's
worker_class = os.environ.get("WEB_WORKER_CLASS", "gthread")
workers = int(os.environ.get("WEB_WORKERS", 2 * cores + 1))
threads = int(os.environ.get("WEB_THREADS", 2))
# Seconds an idle connection stays open for the browser's next request (threaded workers).
keepalive = int(os.environ.get("WEB_KEEPALIVE", 10))
# gunicorn's largest request line: the site refuses addresses over 4,094 characters itself, in
# its own words (paracrowd.request_text.ADDRESS_MAX); only longer lines get gunicorn's 414.
limit_request_line = 8190
