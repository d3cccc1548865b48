"""Entries of `legal_actions` (docs/api.md, "Views"): complete actions, and templates to fill in.

Most entries are whole actions a seat can apply (or a client post) as they are. An entry whose
fields the seat must choose first, Žolíky's meld templates (`{"type": "meld", "melds": [],
"lay_offs": [], "template": true}`: which cards is the player's choice), carries
`"template": True`, and only such an entry does: a client or bot picking at random picks among
`complete(legal)`. The mark is no part of an action: the API drops it from a posted action
(`without_mark`), so a filled-in template sent back with its mark is taken like any other.
"""

from __future__ import annotations

from typing import Any

TEMPLATE = "template"


def is_template(action: dict[str, Any]) -> bool:
    return action.get(TEMPLATE) is True


def complete(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries that can be applied as they are: every one but the templates."""
    return [a for a in legal if a.get(TEMPLATE) is not True]


def without_mark(action: Any) -> Any:
    """`action` without a boolean `template` mark (a copied entry's); anything else as it is, for
    the engine to refuse a `template` that is not a boolean as the unknown field it is."""
    if type(action) is dict and type(action.get(TEMPLATE)) is bool:
        return {k: v for k, v in action.items() if k != TEMPLATE}
    return action
