"""The seed README's Quickstart, adapted only in the import line, the test
server's URL, token and S3 settings, and pyarrow (not in Debian) replaced by
the tests' ctypes producer: pa.schema and pa.table become Producers of the
same fields, handed over through the same PyCapsule protocol."""

import os
import uuid

import pytest

from hoglake import HoglakeClient, S3Config
from arrow_ctypes import Field, Producer

FIELDS = [Field("id", "l", nullable=False), Field("name", "u"), Field("amount", "d:10,2")]


@pytest.fixture
def s3_catalog_path():
    bucket = os.environ.get("HOGLAKE_TEST_S3_BUCKET")
    endpoint = os.environ.get("HOGLAKE_TEST_MOTO_ENDPOINT")
    if not bucket or not endpoint:
        pytest.skip("no S3 test server (HOGLAKE_TEST_MOTO_ENDPOINT, HOGLAKE_TEST_S3_BUCKET)")
    return endpoint, f"s3://{bucket}/py-{uuid.uuid4().hex[:8]}/demo/"


def test_quickstart(server, s3_catalog_path):
    endpoint, data_path = s3_catalog_path
    client = HoglakeClient(
        server.base,
        server.token,
        s3=S3Config(
            access_key=os.environ["HOGLAKE_TEST_S3_ACCESS_KEY"],
            secret_key=os.environ["HOGLAKE_TEST_S3_SECRET_KEY"],
            endpoint_override=endpoint,
            region=os.environ.get("HOGLAKE_TEST_S3_REGION", "us-east-1"),
        ),
    )

    catalog = client.create_catalog("demo" + uuid.uuid4().hex[:6], data_path)
    ns = catalog.create_namespace("analytics")

    table = ns.create_table("events", Producer(FIELDS, []))  # pa.schema([...])
    assert [(c.name, c.type, c.nullable) for c in table.columns] == [
        ("id", "long", False), ("name", "string", True), ("amount", "decimal", True)]

    result = table.append(
        Producer(FIELDS, [{"id": [1, 2], "name": ["a", None], "amount": [None, None]}]),
        author="me",
        message="first batch",
    )
    assert result.snapshot_id is not None

    files = table.files(snapshot=result.snapshot_id)
    assert [f.record_count for f in files] == [2]
    for f in files:
        assert f.path.startswith(data_path.rstrip("/") + "/data/analytics/events/")
        assert f.stats_state and f.row_id_start == 0

    plan = table.changes(from_snapshot=0)
    catalog.commit_offset("my-consumer", table.table_uuid, plan.to_snapshot)
    assert catalog.offset("my-consumer", table.table_uuid) == plan.to_snapshot

    # create_table keeps its DDL snapshot on the handle: read the append's.
    rows = table.read(snapshot=result.snapshot_id).to_pylist()
    assert sorted(rows, key=lambda r: r["id"]) == [
        {"id": 1, "name": "a", "amount": None},
        {"id": 2, "name": None, "amount": None},
    ]
    assert catalog.refresh().head_snapshot_id == result.snapshot_id
