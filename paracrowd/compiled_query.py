"""Querysets compiled to SQL once per process and run again with other values.

Turning a queryset that follows relations (``select_related``) into SQL costs the ORM about a
millisecond every time, more than PostgreSQL takes to answer it. The pages every crowd worker
loads on every task (the signed-in user, their own assignment) run the same few such queries
with different ids, so each is compiled once, with placeholder values, and afterwards only
the values change. The rows are turned into model instances by Django's own machinery
(converters, ``from_db``, related objects), exactly as the queryset itself would.
"""

from collections.abc import Callable

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

# Placeholder values no real row has: ids are positive. Each placeholder of one query is a
# different number, so that its position among the compiled parameters is unambiguous. Within
# a 32-bit integer's range, or the ORM would compile an impossible comparison to no SQL at all.
_FIRST_PLACEHOLDER = -2_100_000_001


class CompiledQuery:
    """``build(**values)`` returns the queryset; ``fetch(**values)`` runs its SQL, compiled on
    the first call, with these values. Only for values that reach the SQL unchanged as
    parameters (equality on ids and other integers); anything else must stay constant
    inside ``build``."""

    def __init__(self, build: Callable[..., QuerySet], *names: str):
        self._build = build
        self._names = names
        self._compiled = None

    def fetch(self, **values) -> list[Model]:
        compiled = self._compiled or self._compile()
        params = [
            values[slot] if slot is not None else constant
            for slot, constant in zip(compiled["slots"], compiled["params"], strict=True)
        ]
        with connections[compiled["db"]].cursor() as cursor:
            cursor.execute(compiled["sql"], params)
            rows = cursor.fetchall()
        return self._instances(compiled, rows)

    def _compile(self) -> dict:
        placeholders = {name: _FIRST_PLACEHOLDER - n for n, name in enumerate(self._names)}
        queryset = self._build(**placeholders)
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
        by_value = {value: name for name, value in placeholders.items()}
        slots = [by_value.get(param) if type(param) is int else None for param in params]
        if sorted(slot for slot in slots if slot is not None) != sorted(self._names):
            raise ValueError(f"each of {self._names} must be one parameter of the SQL: {sql}")
        klass_info = compiler.klass_info
        first, last = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        self._compiled = {
            "db": queryset.db,
            "sql": sql,
            "params": params,
            "slots": slots,
            "compiler": compiler,
            # Found once too: the ORM looks them up again on every run of a queryset.
            "converters": compiler.get_converters(
                [column[0] for column in compiler.select[: compiler.col_count]]
            ),
            "model": klass_info["model"],
            "fields": (first, last),
            "init_list": [column[0].target.attname for column in compiler.select[first:last]],
            "populators": get_related_populators(klass_info, compiler.select, queryset.db),
            "annotations": compiler.annotation_col_map,
        }
        return self._compiled

    @staticmethod
    def _instances(compiled: dict, rows: list) -> list[Model]:
        # As django.db.models.query.ModelIterable builds them.
        model, (first, last), db = compiled["model"], compiled["fields"], compiled["db"]
        if compiled["converters"]:
            rows = compiled["compiler"].apply_converters(rows, compiled["converters"])
        instances = []
        for row in rows:
            instance = model.from_db(db, compiled["init_list"], row[first:last])
            for populator in compiled["populators"]:
                populator.populate(row, instance)
            for name, position in compiled["annotations"].items():
                setattr(instance, name, row[position])
            instances.append(instance)
        return instances
