"""What every answer carries so that a browser keeps the pages (/play, /docs) to themselves, and
/docs's page without flask-smorest's inline script (docs/api.md, "Pages and browsers").

- `Content-Security-Policy` on the pages: scripts, styles, fonts and requests from this server
  only (no inline script or style, no eval), images also as `data:` URLs (Swagger UI's icons, the
  table's empty favicon), no plugins, no `<base>`, and `frame-ancestors 'none'`: no other site
  may frame a page to trick clicks out of a player. `X-Frame-Options: DENY` says the same to
  browsers older than CSP 2.
- `X-Content-Type-Options: nosniff` on every answer: a JSON body (which may echo what a client
  sent) is never run as a script or a page.
- `Referrer-Policy: no-referrer` on every answer: the table's address carries the match id
  (`/play?match=ID`; the token rides in the fragment, which no browser sends), and a link or a
  request from the page must not hand it to anyone.
"""

from __future__ import annotations

import importlib.resources

from flask import Flask, Response, render_template_string, request, send_from_directory, url_for

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
# The paths of the pages and what they load; the API's JSON answers need no policy of their own.
PAGE_PREFIXES = ("/play", "/docs")

# Swagger UI's starter: served beside the swagger-ui-py wheel's assets under /docs/assets/.
SWAGGER_UI_INIT = "swagger-ui-init.js"

_DOCS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{ title }}</title>
<link href="{{ assets }}swagger-ui.css" rel="stylesheet" type="text/css">
</head>
<body>
<div id="swagger-ui-container" data-spec-url="{{ spec_url }}"></div>
<script src="{{ assets }}swagger-ui-standalone-preset.js"></script>
<script src="{{ assets }}swagger-ui-bundle.js"></script>
<script src="{{ assets }}{{ init }}"></script>
</body>
</html>
"""


def install(app: Flask, title: str, assets: str) -> None:
    """Serve /docs as `_DOCS_PAGE` in place of flask-smorest's page with its starter script, and
    add the headers above to every answer."""

    def docs_page() -> str:
        spec_url = url_for("api-docs.openapi_json")
        return render_template_string(
            _DOCS_PAGE, title=title, assets=assets, spec_url=spec_url, init=SWAGGER_UI_INIT
        )

    app.view_functions["api-docs.openapi_swagger_ui"] = docs_page
    # Beside the wheel's files: a rule without a variable wins over `<assets><name>`.
    app.add_url_rule(assets + SWAGGER_UI_INIT, "swagger_ui_init", _swagger_ui_init)
    app.after_request(_security_headers)


def _swagger_ui_init() -> Response:
    folder = importlib.resources.files("service") / "static" / "docs"
    return send_from_directory(str(folder), SWAGGER_UI_INIT, max_age=3600)


def _security_headers(resp: Response) -> Response:
    headers = resp.headers
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    if request.environ.get("PATH_INFO", "").startswith(PAGE_PREFIXES):
        headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        headers["X-Frame-Options"] = "DENY"
    return resp
