"""The JSON body cache of `service.http.extensions.Blueprint.arguments`: a small body's load is kept
and reused, so each request must get its own copy, and a refused body is never kept."""

from __future__ import annotations

import marshmallow as ma
from flask import Flask
from flask.views import MethodView

from service.http.arguments import BODY_CACHE_BYTES
from service.http.extensions import Api, Blueprint


class MoveSchema(ma.Schema):
    type = ma.fields.String(required=True)
    cards = ma.fields.List(ma.fields.String())


def make_app() -> tuple[Flask, list]:
    app = Flask("body-cache-test")
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.0.3")
    api = Api(app)
    blp = Blueprint("t", __name__)
    seen: list = []

    @blp.route("/move")
    class Move(MethodView):
        @blp.arguments(MoveSchema())
        def post(self, body):
            seen.append({"type": body["type"], "cards": list(body.get("cards", []))})
            body["cards"] = ["changed by the view"]  # a view may change what it was given
            body["type"] = "changed"
            return {"ok": True}

    api.register_blueprint(blp)
    return app, seen


def test_each_request_gets_its_own_copy_of_a_cached_body():
    app, seen = make_app()
    client = app.test_client()
    for _ in range(3):
        assert client.post("/move", json={"type": "play", "cards": ["QH"]}).status_code == 200
    assert seen == [{"type": "play", "cards": ["QH"]}] * 3


def test_a_refused_body_is_refused_every_time_and_a_good_one_after_it_is_loaded():
    app, seen = make_app()
    client = app.test_client()
    for _ in range(2):
        answer = client.post("/move", json={"cards": ["QH"]})  # no type
        assert answer.status_code == 422 and "type" in answer.get_json()["errors"]
    for _ in range(2):
        assert client.post("/move", data=b'{"type": ', content_type="application/json").status_code == 400
    assert client.post("/move", json={"type": "play"}).status_code == 200
    assert seen == [{"type": "play", "cards": []}]


def test_a_body_over_the_cache_size_is_loaded_as_usual():
    app, seen = make_app()
    client = app.test_client()
    cards = [f"C{i:03d}" for i in range(BODY_CACHE_BYTES // 4)]
    for _ in range(2):
        assert client.post("/move", json={"type": "play", "cards": cards}).status_code == 200
    assert seen == [{"type": "play", "cards": cards}] * 2
