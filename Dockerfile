FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DEBUG=True python manage.py collectstatic --noinput -v0
EXPOSE 8000
CMD ["gunicorn", "paracrowd.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3"]
