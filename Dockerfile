FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
# WordNet's database (/usr/share/wordnet): the pre-aligner's synonyms, read offline.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends wordnet-base \
    && rm -rf /var/lib/apt/lists/*
# requirements.txt installs the metrics library from ./metrics, so it comes first too.
COPY requirements.txt .
COPY metrics metrics
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DEBUG=True python manage.py collectstatic --noinput -v0
# Nothing runs as root: the web server and Celery run as this account, which owns only the
# local state (media, the beat schedule), not the code.
RUN useradd --system --uid 10001 --home-dir /app --no-create-home paracrowd \
    && mkdir -p var/media var/run && chown -R paracrowd:paracrowd var
USER paracrowd
EXPOSE 8000
# Worker class and count: gunicorn.conf.py (README, "Production").
CMD ["gunicorn", "paracrowd.wsgi", "--bind", "0.0.0.0:8000"]
