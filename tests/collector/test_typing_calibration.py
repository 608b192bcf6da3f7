"""``calibrate_typing_signals`` simulates honest and dishonest writers, runs their typing
records through the site's own signals and prints the calibration table; seeded, so the same
options print the same table. The rates themselves are the simulation's, not asserted here."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from collector import provenance
from collector.typing_calibration import POPULATIONS, SIGNAL_THRESHOLDS


def table(*options) -> str:
    out = StringIO()
    call_command("calibrate_typing_signals", *options, stdout=out)
    return out.getvalue()


def test_the_same_seed_prints_the_same_table():
    first = table("--seed", "3", "--workers", "4", "--texts", "3")

    assert table("--seed", "3", "--workers", "4", "--texts", "3") == first
    for signal in ("copy_then_paste", "synthetic_events", "webdriver", "canary"):
        assert f"| `{signal}` | " in first  # the new signals' rows are in what is compared


def test_the_canary_figures_do_not_depend_on_the_secret_marker(settings):
    first = table("--seed", "3", "--workers", "4", "--texts", "3")
    settings.SECRET_KEY = "another secret, so another marker"

    assert table("--seed", "3", "--workers", "4", "--texts", "3") == first


def test_the_canary_catches_the_answers_that_hold_the_marker_through_the_sites_check():
    # The share of answers holding the marker is an assumption; the flag is certain.
    always = table("--workers", "3", "--texts", "4", "--canary-follows", "1")
    never = table("--workers", "3", "--texts", "4", "--canary-follows", "0")

    assert "| – (no goal) | model answer | `canary` | 100.0% |" in always
    assert "| – (no goal) | model answer | `canary` | 0.0% |" in never
    assert "includes the canary's marker in 100% of its answers" in always


def test_every_form_a_model_writes_the_marker_in_is_found(settings):
    # Capitalised, quoted, inflected, in tag characters: the site's check finds them all,
    # whatever the assumption about how often a model follows the line.
    for secret in ("one secret", "another secret"):
        settings.SECRET_KEY = secret
        for follows in ("0", "1"):
            text = table(
                "--seed", "5", "--workers", "20", "--texts", "5", "--canary-follows", follows
            )
            assert "| canary | canary-follower | `canary` | 100.0% |" in text


def test_the_table_has_a_row_per_signal_and_per_population():
    text = table("--seed", "0", "--workers", "3", "--texts", "2")

    assert text.startswith("Seed 0; 3 workers a population, 2 texts each; shares of texts.")
    assert list(SIGNAL_THRESHOLDS) == [
        "pasted",
        "too_fast",
        "background",
        "copy_then_paste",
        "inserted_no_keys",
        "synthetic_events",
        "webdriver",
        "left_after_copy",
        "even_keys",
        "canary",
    ]
    assert set(SIGNAL_THRESHOLDS) == set(provenance.SIGNALS) - {provenance.UNKNOWN}
    for signal, threshold in SIGNAL_THRESHOLDS.items():
        assert f"| `{signal}` | {threshold} | " in text
    assert "pasted characters > 50% of the text" in text  # the bound the code uses
    for population in POPULATIONS:
        kind = "honest" if population.honest else "dishonest"
        assert f"| {population.name} ({kind}) | " in text
    names = {population.name for population in POPULATIONS}
    assert {"fast typist", "slow typist", "IME", "swipe", "phone"} <= names
    assert {"paster", "copy-prompt-paste", "automation", "canary-follower", "model answer"} <= names
    for goal in ("paste", "automation", "canary"):
        assert f"| {goal} | " in text
    assert "| any signal | | " in text
    for population in POPULATIONS:  # every signal a population is meant to raise exists
        assert set(population.catches) <= set(SIGNAL_THRESHOLDS)


def test_honest_writers_never_report_automation_or_script_events():
    text = table("--workers", "5", "--texts", "4")

    for population in POPULATIONS:
        if population.honest:
            row = next(
                line for line in text.splitlines() if line.startswith(f"| {population.name} (")
            )
            cells = row.split(" | ")
            signals = list(SIGNAL_THRESHOLDS)
            for signal in ("synthetic_events", "webdriver", "canary"):
                assert cells[1 + signals.index(signal)].rstrip(" |") == "0.0%", (population, signal)


def test_it_refuses_an_empty_population():
    with pytest.raises(CommandError, match="at least 1"):
        table("--workers", "0")


def test_it_refuses_a_canary_share_outside_0_to_1():
    with pytest.raises(CommandError, match="between 0 and 1"):
        table("--canary-follows", "1.5")
