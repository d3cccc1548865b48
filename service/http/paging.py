"""The fields of a paged list (an app's matches, a player's matches, a leaderboard): how many a
page holds, the cursor a client sends back for the next page, and the one an answer gives."""

import marshmallow as ma

# A cursor as the lists write it: base64url, no padding.
CURSOR_PATTERN = "^[A-Za-z0-9_-]+$"


def page_limit(most: int) -> ma.fields.Integer:
    """`limit`: 20 a page unless asked, at most `most`."""
    return ma.fields.Integer(load_default=20, validate=ma.validate.Range(min=1, max=most))


def cursor_sent(answered_as: str, longest: int = 200) -> ma.fields.String:
    """`cursor`: what the previous page answered as `answered_as`."""
    return ma.fields.String(
        validate=ma.validate.Length(min=1, max=longest),
        metadata={"description": f"`{answered_as}` of the previous page", "pattern": CURSOR_PATTERN},
    )


def next_page_cursor() -> ma.fields.String:
    """The cursor of the next page an answer gives; null on the last."""
    return ma.fields.String(
        required=True, allow_none=True, metadata={"description": "cursor of the next page; null on the last"}
    )
