"""Stand-ins for the crowd platforms, for every test module here: Mechanical Turk's client
under botocore's Stubber, and a local HTTP stand-in of Prolific's API."""

import boto3
import pytest
from botocore.stub import Stubber

from crowd import platforms
from crowd.platforms.mturk.client import SANDBOX_ENDPOINT, MechanicalTurk
from tests.crowd.prolific_standin import prolific_api  # noqa: F401


@pytest.fixture
def mturk_account(monkeypatch):
    """``(connector, stubber, slept)``: a sandbox connector whose every call must have been
    expected on the Stubber (with its exact parameters), and the backoffs it would have slept."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_CONFIG_FILE": "/dev/null",
        "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
    }.items():
        monkeypatch.setenv(name, value)
    client = boto3.client("mturk", region_name="us-east-1", endpoint_url=SANDBOX_ENDPOINT)
    slept = []
    with Stubber(client) as stubber:
        yield MechanicalTurk(client=client, sleep=slept.append), stubber, slept
        stubber.assert_no_pending_responses()


@pytest.fixture
def mturk(mturk_account, settings):
    """The Stubber of the Mechanical Turk connector the services use, for this test."""
    connector, stubber, _ = mturk_account
    settings.PLATFORM_PUBLIC_URL = "https://paracrowd.example.org"
    platforms.install("mturk", connector)
    try:
        yield stubber
    finally:
        platforms.install("mturk", None)
