"""The committed contract and the deployment files stay true to the code."""

from __future__ import annotations

import json
import os
import re
import shlex

import redis
import yaml

from service.cli import build_parser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_committed_openapi_matches_what_the_service_generates(app, client):
    with open(os.path.join(ROOT, "openapi", "openapi.json"), encoding="utf-8") as f:
        committed = json.load(f)
    served = client.get("/openapi.json").get_json()
    assert served == committed, "run `cardtable openapi -o openapi/openapi.json` and commit it"
    assert "/v1/matches/{match_id}/actions" in served["paths"]
    assert served["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


def test_docs_page_is_served_with_its_own_assets(client):
    resp = client.get("/docs")
    assert resp.status_code == 200 and b"swagger" in resp.data.lower()
    # Every script and style the page loads is served by the API itself (no CDN), and it is
    # a Swagger UI that reads OpenAPI 3.1 (version 5 or later).
    page = resp.get_data(as_text=True)
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert len(assets) == 4 and all(a.startswith("/docs/assets/") for a in assets), assets
    for path in assets:
        asset = client.get(path)
        # Swagger UI's own files, and the few lines that start it (service/static/docs).
        assert asset.status_code == 200 and len(asset.data) > (100 if "init" in path else 10_000), path
        assert asset.mimetype in ("text/css", "text/javascript", "application/javascript"), asset.mimetype
    # No inline script: the policy (tests/test_play_route.py) would refuse to run it.
    assert re.findall(r"<script[^>]*>", page) == [f'<script src="{a}">' for a in assets if a.endswith(".js")]
    assert "<style" not in page and "style=" not in page and not re.search(r"\son[a-z]+=", page)
    bundle = client.get("/docs/assets/swagger-ui-bundle.js").get_data(as_text=True)
    assert re.search(r'"5\.\d+\.\d+"', bundle)
    # Nothing else of the package's folder is reachable.
    for other in ("index.html", "..%2Fcore.py", "swagger-editor.js"):
        assert client.get(f"/docs/assets/{other}").status_code == 404


def _check_cardtable_command(argv: list[str]) -> None:
    assert argv[0] == "cardtable", argv
    # parse_args exits (SystemExit) on an unknown command or option.
    args = build_parser().parse_args(argv[1:])
    assert callable(args.func)


def test_dockerfile_runs_real_cardtable_commands_as_non_root():
    with open(os.path.join(ROOT, "Dockerfile"), encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    cmds = [line for line in lines if line.startswith(("CMD", "ENTRYPOINT"))]
    assert cmds, "the image must say what it runs"
    for line in cmds:
        _check_cardtable_command(json.loads(line.split(None, 1)[1]))
    users = [line.split()[1] for line in lines if line.startswith("USER")]
    assert users and users[-1] not in ("root", "0")
    for line in lines:
        if line.startswith("COPY"):
            for src in line.split()[1:-1]:
                assert os.path.exists(os.path.join(ROOT, src)), src


# Every Redis of the compose files takes its password from one variable that has no default:
# compose refuses to start without it (docs/deployment.md).
PASSWORD_VAR = r"\$\{CARDTABLE_REDIS_PASSWORD:\?[^}]+\}"
PASSWORD_REF = re.compile(f"^{PASSWORD_VAR}$")


def _option(cmd: list[str], name: str) -> str:
    assert name in cmd, (name, cmd)
    return cmd[cmd.index(name) + 1]


def _check_redis(service: dict, replica: bool = False) -> None:
    """A Redis that asks for the password (a replica also gives it to its master), never evicts
    a key, and whose health check passes only on an authenticated PONG."""
    cmd = service["command"]
    assert cmd[0] == "redis-server"
    assert PASSWORD_REF.match(_option(cmd, "--requirepass")), cmd
    assert _option(cmd, "--maxmemory-policy") == "noeviction"
    if replica:
        assert PASSWORD_REF.match(_option(cmd, "--masterauth")), cmd
    assert PASSWORD_REF.match(service["environment"]["REDISCLI_AUTH"])
    if "healthcheck" in service:
        # redis-cli exits 0 on NOAUTH: the check must look for the PONG itself.
        assert service["healthcheck"]["test"] == ["CMD-SHELL", "redis-cli ping | grep -q PONG"]


def _password_of(url: str) -> str | None:
    """The password a client takes from the URL once compose put the variable's value in
    (service/infra/cluster.py reads a redis+cluster:// URL's this way)."""
    url = re.sub(PASSWORD_VAR, "s3cret", url)
    if url.startswith("redis+cluster://"):
        return url.removeprefix("redis+cluster://").rpartition("@")[0].partition(":")[2]
    return redis.connection.parse_url(url).get("password")


def test_compose_runs_api_worker_and_persistent_redis():
    with open(os.path.join(ROOT, "docker-compose.yml"), encoding="utf-8") as f:
        compose = yaml.safe_load(f)
    services = compose["services"]
    assert {"api", "worker", "webhooks", "redis"} <= set(services)
    redis_cmd = services["redis"]["command"]
    assert redis_cmd[0] == "redis-server" and "--appendonly" in redis_cmd
    assert redis_cmd[redis_cmd.index("--appendonly") + 1] == "yes"
    _check_redis(services["redis"])
    for name in ("api", "worker", "webhooks"):
        cmd = services[name]["command"]
        _check_cardtable_command(cmd if isinstance(cmd, list) else shlex.split(cmd))
        url = services[name]["environment"]["REDIS_URL"]
        assert re.match(f"^redis://:{PASSWORD_VAR}@redis:6379/0$", url), url
        assert _password_of(url) == "s3cret"
    # The worker runs RQ's scheduler unless told not to (turn clocks need it).
    assert "--no-scheduler" not in services["worker"]["command"]
    # Webhook deliveries have workers of their own: a bot worker never runs one, so a slow
    # receiver never delays a bot's turn or a clock.
    assert "--webhooks" in services["webhooks"]["command"]
    assert "--webhooks" not in services["worker"]["command"]


def test_compose_otel_lines_once_uncommented_send_every_process_to_a_collector():
    with open(os.path.join(ROOT, "docker-compose.yml"), encoding="utf-8") as f:
        text = f.read()
    services = yaml.safe_load(text.replace("#otel ", ""))["services"]
    assert "otel-collector" not in yaml.safe_load(text)["services"]  # off as shipped
    assert services["otel-collector"]["image"].startswith("otel/opentelemetry-collector")
    for name in ("api", "worker", "webhooks"):
        env = services[name]["environment"]
        assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel-collector:4318"
        assert env["OTEL_SERVICE_NAME"] == f"cardtable-{name}"
    with open(os.path.join(ROOT, "Dockerfile"), encoding="utf-8") as f:
        assert "pip install --no-cache-dir '.[otel]'" in f.read()  # the image can trace


def test_compose_restarts_services_and_checks_their_health():
    with open(os.path.join(ROOT, "docker-compose.yml"), encoding="utf-8") as f:
        services = yaml.safe_load(f)["services"]
    for name in ("api", "worker", "webhooks", "redis"):
        assert services[name].get("restart") in ("unless-stopped", "always"), name
    assert services["redis"]["healthcheck"]["test"] == ["CMD-SHELL", "redis-cli ping | grep -q PONG"]
    api_check = services["api"]["healthcheck"]["test"]
    assert api_check[0] == "CMD" and any("/readyz" in part for part in api_check)
    # The probe asks the port the API listens on.
    command = services["api"]["command"]
    assert f":{command[command.index('--port') + 1]}/readyz" in " ".join(api_check)
    for name in ("api", "worker", "webhooks"):
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"


def test_cluster_compose_runs_a_3_master_3_replica_cluster_beside_2_apis_and_2_workers():
    with open(os.path.join(ROOT, "docker-compose.cluster.yml"), encoding="utf-8") as f:
        services = yaml.safe_load(f)["services"]
    nodes = sorted(n for n in services if n.startswith("node-"))
    assert len(nodes) == 6
    for name in nodes:
        cmd = services[name]["command"]
        assert cmd[0] == "redis-server" and cmd[cmd.index("--cluster-enabled") + 1] == "yes"
        assert cmd[cmd.index("--appendonly") + 1] == "yes"
        assert services[name]["restart"] == "unless-stopped"
        _check_redis(services[name], replica=True)  # any node may be a replica
    create = " ".join(services["cluster-create"]["command"])
    assert "--cluster create" in create and "--cluster-replicas 1" in create
    assert all(n in create for n in nodes)
    assert PASSWORD_REF.match(services["cluster-create"]["environment"]["REDISCLI_AUTH"])
    apis = [n for n in services if n.startswith("api")]
    assert len(apis) == 2 and services["worker"]["deploy"]["replicas"] == 2
    queue = services["queue"]["command"]
    assert queue[queue.index("--appendonly") + 1] == "yes"
    _check_redis(services["queue"])
    assert "--replicaof" in services["queue-replica"]["command"]
    _check_redis(services["queue-replica"], replica=True)
    for name in [*apis, "worker", "webhooks"]:
        cmd = services[name]["command"]
        _check_cardtable_command(cmd)
        env = services[name]["environment"]
        assert re.match(f"^redis://:{PASSWORD_VAR}@queue:6379/0$", env["REDIS_URL"]), env["REDIS_URL"]
        assert _password_of(env["REDIS_URL"]) == "s3cret"
        state = env["CARDTABLE_STATE_URL"]
        assert _password_of(state) == "s3cret"
        hosts = state.removeprefix("redis+cluster://").rpartition("@")[2].split(",")
        assert sorted(h.split(":")[0] for h in hosts) == nodes
        deps = services[name]["depends_on"]
        assert deps["cluster-create"]["condition"] == "service_completed_successfully"
    for name in apis:
        check = services[name]["healthcheck"]["test"]
        command = services[name]["command"]
        assert f":{command[command.index('--port') + 1]}/readyz" in " ".join(check)


def test_ci_runs_the_readme_test_command():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```sh\n")[1:3]]
    serve, test = blocks
    assert "cardtable serve" in serve
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        assert test in f.read()
