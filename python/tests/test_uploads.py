"""single_request_uploads=False (the seed's streaming path): appends and
prepares go to S3 as multipart uploads and land as with one PUT. The
request counts themselves are checked in C (test_client_prepare), at a
recording S3 stand-in."""

import os
import uuid

from hoglake import HoglakeClient, S3Config, column
from test_quickstart import s3_catalog_path  # noqa: F401 (a fixture)


def test_streaming_uploads_land(server, s3_catalog_path):  # noqa: F811
    endpoint, data_path = s3_catalog_path
    s3 = S3Config(access_key=os.environ["HOGLAKE_TEST_S3_ACCESS_KEY"],
                  secret_key=os.environ["HOGLAKE_TEST_S3_SECRET_KEY"],
                  endpoint_override=endpoint,
                  region=os.environ.get("HOGLAKE_TEST_S3_REGION", "us-east-1"))
    client = HoglakeClient(server.base, server.token, s3=s3, single_request_uploads=False)
    catalog = client.create_catalog("up" + uuid.uuid4().hex[:6], data_path)
    table = catalog.create_namespace("ns").create_table("t", [column("id", "long"),
                                                              column("s", "string")])
    r = table.append({"id": list(range(1000)), "s": [f"row {i}" for i in range(1000)]})
    payload = table.prepare_append({"id": [5000]}, idempotency_key=str(uuid.uuid4()))
    head = table.commit_prepared(payload)
    files = table.files(snapshot=head)
    assert sorted(f.record_count for f in files) == [1, 1000]
    assert all(f.path.startswith(data_path) for f in files)
    rows = table.read(snapshot=head).to_pylist()
    assert len(rows) == 1001 and {"id": 999, "s": "row 999"} in rows
    assert r.files[0].path in {f.path for f in files}
