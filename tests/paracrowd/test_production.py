"""Production settings: secure by default outside DEBUG, `check --deploy` clean with the
documented environment, and a Content-Security-Policy on every page."""

import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.urls import reverse

from tests.factories import make_worker

ROOT = Path(__file__).parents[2]


def django_command(*args, env):
    return subprocess.run(  # noqa: S603 (our own manage.py, arguments from this file)
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
    )


def documented_production_environment() -> dict[str, str]:
    env = {}
    for line in (ROOT / ".env.production.example").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name] = value
    env["SECRET_KEY"] = secrets.token_urlsafe(50)
    return env


def test_check_deploy_prints_no_warning_with_the_documented_production_environment():
    result = django_command(
        "check", "--deploy", "--fail-level", "WARNING", env=documented_production_environment()
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "WARNING" not in result.stderr + result.stdout


@pytest.mark.parametrize("example", [".env.production.example", ".env.example"])
@pytest.mark.parametrize("command", [["check"], ["check", "--deploy"]])
def test_the_example_files_placeholder_key_is_refused_at_start_up(example, command):
    env = documented_production_environment()
    for line in (ROOT / example).read_text().splitlines():
        if line.startswith("SECRET_KEY="):
            env["SECRET_KEY"] = line.partition("=")[2]
    result = django_command(*command, env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is still the placeholder" in result.stderr


def test_without_debug_cookies_redirects_and_hsts_are_secure_by_default():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings as s; "
            "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
            "s.SECURE_HSTS_SECONDS >= 31536000, s.SECURE_HSTS_INCLUDE_SUBDOMAINS)",
        ],
        cwd=ROOT,
        env={"DJANGO_SETTINGS_MODULE": "paracrowd.settings", "DEBUG": "False", "SECRET_KEY": "x"},
        capture_output=True,
        text=True,
    )
    assert result.stdout.split() == ["True"] * 5, result.stderr


@pytest.mark.django_db
def test_plain_http_is_redirected_to_https_except_the_health_check(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    response = client.get(reverse("login"))
    assert response.status_code == 301
    assert response["Location"].startswith("https://")
    assert client.get(reverse("healthz")).status_code == 200


@pytest.mark.django_db
def test_behind_the_proxy_https_is_recognised_and_hsts_sent(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    response = client.get(reverse("login"), HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 200
    assert "max-age=" in response["Strict-Transport-Security"]


@pytest.mark.django_db
def test_every_page_carries_the_content_security_policy(client):
    client.force_login(make_worker().user)
    policy = client.get(reverse("collector:dashboard"))["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "https://www.youtube.com" in directives["script-src"]
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy


def test_docker_builds_leave_secrets_and_local_state_out():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".env", ".env.*", "var", ".git"} <= set(ignored)
    assert "!.env.example" in ignored


def compose(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text())


def test_the_compose_file_runs_production_without_debug_demo_or_root_on_localhost():
    services = compose("docker-compose.yml")["services"]
    for name in ("web", "worker", "beat"):
        service = services[name]
        assert service["environment"]["DEBUG"] == "False", name
        assert service["user"] == "10001:10001", name
        assert "load_demo" not in str(service["command"]), name
    assert services["web"]["ports"] == ["${WEB_BIND:-127.0.0.1}:${WEB_PORT:-8000}:8000"]
    assert "/healthz" in str(services["web"]["healthcheck"])


def test_the_demo_shape_stays_available_for_a_laptop():
    demo = compose("docker-compose.demo.yml")["services"]
    # As `make run`: migrated when a migration is new, the demo loaded when it changed.
    assert "prepare_demo" in demo["web"]["command"]
    assert demo["web"]["environment"]["DEBUG"] == "True"
    assert "user" not in demo["web"]  # still the image's non-root user


def test_the_image_runs_as_a_user_without_root_rights():
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
