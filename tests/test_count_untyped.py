"""scripts/count_untyped.py counts the fields a generated TypeScript client leaves untyped (issue
#33): the number tests/test_typescript_client.py holds the contract to."""

from __future__ import annotations

from scripts.count_untyped import main, untyped_fields

DTS = """
export interface paths {
    "/v1/games": {
        get: operations["listGames"];
    };
}
export interface components {
    schemas: {
        /** @description typed throughout */
        Typed: {
            /** @description a field with unknown in its comment only */
            name: string;
            scores: {
                [key: string]: number;
            };
            cards: components["schemas"]["CardCode"][];
        };
        Free: unknown;
        Loose: {
            data: {
                [key: string]: unknown;
            };
            anything?: any;
            rule?: number;
        } & (unknown & unknown);
    };
}
export interface operations {
    listGames: {
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": unknown;
                };
            };
        };
    };
}
"""


def test_the_counter_lists_each_untyped_field_with_where_it_stands():
    assert untyped_fields(DTS) == [
        "components.schemas.Free",
        "components.schemas.Loose.data.[key: string]",
        "components.schemas.Loose.anything",
        "operations.listGames.responses.200.content.text/plain",
    ]


def test_the_counter_fails_above_its_maximum(tmp_path, capsys):
    path = tmp_path / "schema.d.ts"
    path.write_text(DTS, encoding="utf-8")
    assert main([str(path), "--max", "4"]) == 0
    assert main([str(path), "--max", "3"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "4 untyped field(s)"
