"""The randomised fuzzing pass of the fault suite: schemathesis's command line sends
generated requests to every operation of the research API, over HTTP to gunicorn, with a new
seed each run (it prints the seed, to replay a finding). `make test` runs a fixed set of
examples (tests/research/test_api_schema.py); this pass looks further, and prints what it
found rather than deciding a submission."""

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

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
    edge = _edge_answers(port, token)
    return {
        "deep JSON answered 400": f"{edge['deep JSON answered 400']} of {len(DEEP_ADDRESSES)}",
        "concurrent schema requests, 200": f"{edge['schema 200']} of {SCHEMA_REQUESTS}",
        "server errors": edge["server errors"],
        "examples per operation": examples,
        "seed (to replay)": seed.group(1) if seed else "(see the log)",
        "result": last[0].strip("= "),
        "findings": "; ".join(findings) or "none",
        "log": str(log_dir / "schemathesis.log"),
    }


# What the generated requests cannot reach: a JSON body nested thousands deep on addresses of
# every kind, and the schema asked for by many threads at once (its generator is not
# thread-safe). Any 5xx here fails the suite: these are fixed inputs, not a random search.
DEEP_ADDRESSES = ("/api/exports/", "/accounts/login/", "/external/describe/", "/healthz")
SCHEMA_REQUESTS = 30


def _edge_answers(port: int, token: str) -> dict:
    base = f"http://127.0.0.1:{port}"
    deep = [
        requests.post(
            base + address,
            data=b"[" * 5000,
            headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
            timeout=30,
        ).status_code
        for address in DEEP_ADDRESSES
    ]

    def schema(_):
        answer = requests.get(
            f"{base}/api/schema/?format=json",
            headers={"Authorization": f"Token {token}"},
            timeout=60,
        )
        return answer.status_code

    with ThreadPoolExecutor(max_workers=SCHEMA_REQUESTS) as pool:
        schemas = list(pool.map(schema, range(SCHEMA_REQUESTS)))
    return {
        "deep JSON answered 400": deep.count(400),
        "schema 200": schemas.count(200),
        "server errors": sum(status >= 500 for status in deep + schemas),
    }
