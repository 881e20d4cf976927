"""Prepared appends: encode and upload now, publish later (from the payload
alone, in another client), replay safely."""

import json
import uuid

import pytest

import hoglake
from hoglake import column


def test_prepare_persist_commit_replay(server, catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long", nullable=False)])
    key = str(uuid.uuid4())
    payload = table.prepare_append({"id": [1, 2, 3]}, idempotency_key=key)
    assert json.loads(payload)["idempotency_key"] == key
    assert ns.table("t").read().to_pylist() == []  # nothing visible before the commit

    # Published by another client from the persisted payload, then replayed.
    other = server.client().catalog(catalog.name)
    snapshot = other.commit_prepared(payload)
    assert other.commit_prepared(payload) == snapshot
    assert table.commit_prepared(payload) == snapshot
    rows = ns.table("t").read().to_pylist()
    assert sorted(r["id"] for r in rows) == [1, 2, 3]


def test_prepared_payload_refused_after_recreate(catalog):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [column("id", "long", nullable=False)])
    payload = table.prepare_append([{"id": 1}], idempotency_key=str(uuid.uuid4()))
    table.drop()
    ns.create_table("t", [column("id", "long", nullable=False)])
    with pytest.raises(hoglake.HoglakeError) as e:
        table.commit_prepared(payload)
    assert e.value.re_prepare
    assert ns.table("t").read().to_pylist() == []
    with pytest.raises(hoglake.InvalidArgumentError):
        table.prepare_append([{"id": 1}], idempotency_key="not-a-uuid")
