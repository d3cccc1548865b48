"""Two marshmallow fields of the match schemas: a strict boolean, and a nested schema written out as
it is."""

import marshmallow as ma


class StrictBoolean(ma.fields.Boolean):
    """true or false, as the contract says: marshmallow's Boolean also takes 1, "yes", "on"."""

    def _deserialize(self, value, attr, data, **kwargs):
        if type(value) is not bool:
            raise self.make_error("invalid")
        return value


class AsIs(ma.fields.Nested):
    """Documented as its named schema (a generated client gets a model), written out as the dict
    it is: events and actions carry more fields than the schema names, by type and game."""

    def _serialize(self, value, attr, obj, **kwargs):
        return value
