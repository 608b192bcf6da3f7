"""``make run``'s database step (``manage.py prepare_demo``): a second run neither migrates nor
loads the demo again when nothing changed, and a new database, a changed demo or a missing demo
login gets the demo loaded again."""

import shutil

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection

from crowd.models import Campaign
from demo import version as demo_version_module
from demo.loaders.work import CAMPAIGN_NAME
from demo.models import LoadedDemo
from demo.version import demo_version

pytestmark = pytest.mark.django_db

LOADED = "Demo loaded. Logins:"


def prepare(capsys, *arguments) -> str:
    call_command("prepare_demo", *arguments)
    return capsys.readouterr().out


def test_a_new_database_gets_the_demo_and_a_second_run_leaves_it_alone(media_root, capsys):
    assert LOADED in prepare(capsys)
    assert LoadedDemo.objects.get().version == demo_version()
    # Gone since: a second run that loaded the demo again would make it again.
    Campaign.objects.filter(name=CAMPAIGN_NAME).delete()

    printed = prepare(capsys)

    assert LOADED not in printed
    assert f"Demo: version {demo_version()[:12]} is loaded already" in printed
    assert not Campaign.objects.filter(name=CAMPAIGN_NAME).exists()


def test_another_version_of_the_demo_is_loaded_again(media_root, capsys):
    call_command("load_demo", verbosity=0)
    Campaign.objects.filter(name=CAMPAIGN_NAME).delete()
    LoadedDemo.objects.update(version="a demo of an older checkout")

    assert LOADED in prepare(capsys)

    assert Campaign.objects.filter(name=CAMPAIGN_NAME).exists()
    assert LoadedDemo.objects.get().version == demo_version()


def test_the_demo_is_loaded_again_when_a_demo_login_is_gone(media_root, capsys):
    call_command("load_demo", verbosity=0)
    # Renamed in the admin: the demo's tier1 login no longer exists.
    get_user_model().objects.filter(username="tier1").update(username="renamed")

    assert LOADED in prepare(capsys)

    assert get_user_model().objects.filter(username="tier1").exists()


def test_nothing_is_migrated_when_every_migration_is_applied(media_root, capsys):
    call_command("load_demo", verbosity=0)

    assert "Migrations: none to apply." in prepare(capsys)


def test_an_unapplied_migration_is_applied(media_root, capsys):
    call_command("migrate", "demo", "zero", verbosity=0)
    assert "demo_loadeddemo" not in connection.introspection.table_names()

    printed = prepare(capsys)

    assert "Applying demo.0001_initial... OK" in printed
    assert LOADED in printed
    assert LoadedDemo.objects.get().version == demo_version()


def test_the_phases_file_gets_how_long_each_step_took(media_root, capsys, tmp_path):
    phases = tmp_path / "run-phases"
    phases.write_text("install 1.000000\n")

    prepare(capsys, "--phases", str(phases))

    lines = phases.read_text().splitlines()
    assert [line.split()[0] for line in lines] == ["install", "migrate", "demo"]
    assert all(float(line.split()[1]) >= 0 for line in lines)


def test_the_version_follows_the_demo_files_and_not_compiled_ones(tmp_path, monkeypatch):
    copy = tmp_path / "demo"
    shutil.copytree(demo_version_module.DEMO, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(demo_version_module, "DEMO", copy)
    current = demo_version()
    (copy / "loaders" / "__pycache__").mkdir(exist_ok=True)
    (copy / "loaders" / "__pycache__" / "work.cpython-311.pyc").write_bytes(b"compiled")
    assert demo_version() == current

    paraphrases = copy / "data" / "paraphrases.tsv"
    paraphrases.write_text(paraphrases.read_text() + "\n")

    assert demo_version() != current
