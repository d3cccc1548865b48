"""`CardtableFlask.ensure_sync` keeps Flask's coroutine check per function: the cache must not
grow with requests (a MethodView's handler is a new bound method each time), and an async
view must still get Flask's own answer."""

from __future__ import annotations

import pytest
from flask.views import MethodView

from service.http.app import CardtableFlask


def make_app() -> CardtableFlask:
    app = CardtableFlask("sync-cache-test")

    class Thing(MethodView):
        def get(self):
            return {"kind": "method view"}

    app.add_url_rule("/thing", view_func=Thing.as_view("thing"))

    @app.before_request
    def hook():
        return None

    @app.get("/plain")
    def plain():
        return {"kind": "function"}

    return app


def test_the_coroutine_check_cache_does_not_grow_with_requests():
    app = make_app()
    client = app.test_client()
    for path in ("/thing", "/plain"):
        assert client.get(path).status_code == 200
    size = len(app._is_async)
    for _ in range(50):
        assert client.get("/thing").get_json() == {"kind": "method view"}
        assert client.get("/plain").get_json() == {"kind": "function"}
    assert size > 0
    assert len(app._is_async) == size


def test_an_async_view_still_gets_flasks_own_answer():
    app = make_app()
    assert app.ensure_sync(make_app) is make_app  # a plain function comes back as it is

    async def coroutine_view():
        return {"kind": "async"}

    # Flask without its "async" extra (as installed here) refuses async views; the cache must
    # not turn that refusal into a coroutine called bare.
    with pytest.raises(RuntimeError, match="async"):
        app.ensure_sync(coroutine_view)
    with pytest.raises(RuntimeError, match="async"):
        app.ensure_sync(coroutine_view)  # the second time from the cache
