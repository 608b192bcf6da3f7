import os

# Settings refuse to start without a secret key unless DEBUG; tests run with DEBUG off.
os.environ.setdefault("SECRET_KEY", "tests-only-not-secret")
