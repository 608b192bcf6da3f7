"""The randomised fuzzing pass of the fault suite: schemathesis's command line sends
generated requests to every operation of the research API, over HTTP to gunicorn, with a new
seed each run (it prints the seed, to replay a finding). `make test` runs a fixed set of
examples (tests/research/test_api_schema.py); this pass looks further, and prints what it
found rather than deciding a submission."""

import re
import subprocess
import sys
from pathlib import Path

# As in tests/research/test_api_schema.py, the checks about what the schema cannot say.
EXCLUDED_CHECKS = "negative_data_rejection,positive_data_acceptance"


def scenario_fuzzing(port: int, log_dir: Path, *, examples: int) -> dict:
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    from research.services import researcher_create, researcher_token_reset

    schema = log_dir / "openapi.json"
    generated = SchemaGenerator().get_schema(request=None, public=True)
    schema.write_bytes(OpenApiJsonRenderer().render(generated))
    researcher = researcher_create(username="faults-fuzzer", password="fuzzing only, unused")  # noqa: S106
    token = researcher_token_reset(user=researcher).key
    command = [str(Path(sys.executable).parent / "schemathesis"), "run", str(schema)]
    command += ["--url", f"http://127.0.0.1:{port}", "-H", f"Authorization: Token {token}"]
    command += ["--max-examples", str(examples), "--exclude-checks", EXCLUDED_CHECKS]
    command += ["--no-color", "--report-dir", str(log_dir / "schemathesis")]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    output = result.stdout + result.stderr
    (log_dir / "schemathesis.log").write_text(output)
    seed = re.search(r"^Seed: (\d+)", output, re.MULTILINE)
    # The summary's "Failures:" and "Errors:" blocks: one line per kind, with its count.
    summary = output.rsplit("SUMMARY", 1)[-1]
    findings = re.findall(r"^\s+(?:❌|🚫) (.+: \d+)$", summary, re.MULTILINE)
    last = output.strip().splitlines()[-1:] or [""]
    return {
        "examples per operation": examples,
        "seed (to replay)": seed.group(1) if seed else "(see the log)",
        "result": last[0].strip("= "),
        "findings": "; ".join(findings) or "none",
        "log": str(log_dir / "schemathesis.log"),
    }
