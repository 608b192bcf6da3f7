# The local Prolific stand-in, for every test module here that talks to Prolific.
from tests.crowd.prolific_standin import prolific_api  # noqa: F401
