"""hoglake: the Python client of the hoglake lakehouse catalog.

A CPython extension over libhoglake, the C client library: the writer
path (Parquet encoding, statistics, uploads, the commit) runs in C with the
GIL released. Data goes in and out through the Arrow PyCapsule interface
(``__arrow_c_stream__``), so pyarrow, polars and DuckDB objects are taken
directly and a ``Reader`` can be handed to them; plain Python data (a dict of
lists, a list of dicts) works for small appends and ``Reader.to_pylist()``.

    import hoglake

    client = hoglake.HoglakeClient("http://localhost:8080", token="...")
    catalog = client.create_catalog("demo", "file:///srv/lake/demo")
    ns = catalog.create_namespace("analytics")
    table = ns.create_table("events", [hoglake.column("id", "long", nullable=False),
                                       hoglake.column("name", "string")])
    result = table.append({"id": [1, 2], "name": ["a", None]}, author="me")
    print(table.read(snapshot=result.snapshot_id).to_pylist())
"""

import os as _os
from dataclasses import dataclass as _dataclass
from typing import Any as _Any, Optional as _Optional

from . import _hoglake
from ._hoglake import (AppendedFile, AppendResult, Catalog, CatalogOptions, ChangeDeleteFile,
                       ChangesPlan, CleanupResult, Column, CompactResult, DataFile, DeleteFile,
                       ExpireResult, HydrateResult, Namespace, PartitionField, Reader, ScanFile,
                       Snapshot, Snapshots, SortField, Table, TableInfo)

__all__ = [
    "HoglakeClient", "Client", "S3Config", "Catalog", "Namespace", "Table", "Reader",
    "Snapshots", "AppendResult", "AppendedFile", "Record", "column", "ops", "UNGUARDED",
    "TableInfo", "Column", "PartitionField", "SortField", "DataFile", "DeleteFile", "ScanFile",
    "ChangesPlan", "ChangeDeleteFile", "Snapshot",
    "CatalogOptions", "ExpireResult", "CleanupResult", "CompactResult", "HydrateResult",
    "HoglakeError", "InvalidArgumentError", "NotFoundError", "AlreadyExistsError",
    "CommitConflictError", "DdlSinceReadSnapshotError", "IncarnationChangedError",
    "TableDroppedError", "ExpiredError", "ValidationError", "BadRequestError",
    "UnavailableError", "HoglakeTimeoutError", "TransportError", "ProtocolError",
    "ServerError", "NotImplementedByServerError", "AuthenticationError",
    "PermissionDeniedError", "CancelledError",
    "NotFound", "CommitConflict", "DdlSinceReadSnapshot", "IncarnationChanged", "Expired",
]


# ---- exceptions ----

class HoglakeError(Exception):
    """A failed call. ``code`` is the server's typed error code (or a short
    local one), ``detail`` its message, ``status`` libhoglake's status name;
    ``retryable``: replaying the identical request may succeed;
    ``re_prepare``: the payload must be rebuilt before any retry."""

    def __init__(self, detail: str, *, status: str = "unknown", code: _Optional[str] = None,
                 http_status: int = 0, retryable: bool = False, re_prepare: bool = False):
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.code = code or status
        self.http_status = http_status
        self.retryable = retryable
        self.re_prepare = re_prepare

    def __str__(self) -> str:
        return f"{self.code}: {self.detail}"


class InvalidArgumentError(HoglakeError, ValueError):
    """The call was given something unusable (an unknown column, a bad predicate)."""


class ValidationError(HoglakeError, ValueError):
    """422: the server refused the request's content."""


class BadRequestError(HoglakeError, ValueError):
    """400: the request's shape was wrong."""


class NotFoundError(HoglakeError, LookupError):
    """404: no such catalog, namespace, table or snapshot."""


class AlreadyExistsError(HoglakeError):
    """409 already_exists."""


class CommitConflictError(HoglakeError):
    """409: a concurrent commit won; refresh and retry (``retryable``)."""


class DdlSinceReadSnapshotError(HoglakeError):
    """409 ddl_since_read_snapshot: the table's layout changed; re-prepare."""


class IncarnationChangedError(HoglakeError):
    """409 table_recreated: the table was dropped and recreated since the
    handle resolved it; nothing was written (``re_prepare``)."""


class TableDroppedError(HoglakeError):
    """409 table_dropped."""


class ExpiredError(HoglakeError):
    """410: the snapshot is below the expiry floor; re-read, never replay."""


class UnavailableError(HoglakeError):
    """503: retry the same request."""


class HoglakeTimeoutError(HoglakeError, TimeoutError):
    """No answer in time; the outcome is unknown."""


class TransportError(HoglakeError, OSError):
    """A transport or storage failure."""


class ProtocolError(HoglakeError):
    """The peer answered something the client cannot parse."""


class ServerError(HoglakeError):
    """5xx from the server, or a bug."""


class NotImplementedByServerError(HoglakeError):
    """501 not_implemented."""


class AuthenticationError(HoglakeError):
    """401: no token, or one that is unknown, revoked or expired."""


class PermissionDeniedError(HoglakeError):
    """403: the token's role does not allow the request."""


class CancelledError(HoglakeError):
    """The call was cancelled."""


# The names the issue and the seed use for the same classes.
NotFound = NotFoundError
CommitConflict = CommitConflictError
DdlSinceReadSnapshot = DdlSinceReadSnapshotError
IncarnationChanged = IncarnationChangedError
Expired = ExpiredError

_ERRORS = {
    "invalid_argument": InvalidArgumentError,
    "not_found": NotFoundError,
    "already_exists": AlreadyExistsError,
    "conflict": CommitConflictError,
    "ddl_since_read_snapshot": DdlSinceReadSnapshotError,
    "table_recreated": IncarnationChangedError,
    "table_dropped": TableDroppedError,
    "expired": ExpiredError,
    "validation": ValidationError,
    "bad_request": BadRequestError,
    "unavailable": UnavailableError,
    "timeout": HoglakeTimeoutError,
    "io": TransportError,
    "protocol": ProtocolError,
    "out_of_memory": ServerError,
    "internal": ServerError,
    "not_implemented": NotImplementedByServerError,
    "unauthenticated": AuthenticationError,
    "forbidden": PermissionDeniedError,
    "cancelled": CancelledError,
}


class Record(dict):
    """A JSON object the server returned: a dict whose keys also read as
    attributes (``f.path``, ``f["path"]``)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> _Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        return list(super().__dir__()) + [k for k in self if isinstance(k, str)]


class _Unguarded:
    def __repr__(self) -> str:
        return "hoglake.UNGUARDED"


UNGUARDED = _Unguarded()
"""expected_table_uuid=UNGUARDED: the append resolves the table by name only
(the same as unguarded=True)."""

_hoglake._register(errors=_ERRORS, base=HoglakeError, record=Record, unguarded=UNGUARDED)


# ---- small helpers ----

def column(name: str, type: str, nullable: bool = True, **extra: _Any) -> dict:
    """One column definition for ``Namespace.create_table``: a catalog type
    name ("long", "string", "timestamptz", "decimal(10,2)", ...); extra keys
    (``type_params``, ``children``) pass through."""
    return {"name": name, "type": type, "nullable": nullable, **extra}


def _column_def(name: str, type: _Any, nullable: bool, extra: dict) -> dict:
    """A ColumnDef from a catalog type name or an Arrow type."""
    if hasattr(type, "__arrow_c_schema__"):
        return {**_hoglake._arrow_column_def(type, name, nullable), **extra}
    return column(name, type, nullable, **extra)


class ops:
    """Alter operations for ``Table.alter``, as the server's op objects.
    Columns are named by their dotted path (``addr.zip``); the ops of one
    ``alter`` apply in order as one DDL snapshot."""

    @staticmethod
    def add_column(name: str, type: _Any, nullable: bool = True, *,
                   parent: _Optional[str] = None, comment: _Optional[str] = None,
                   **extra: _Any) -> dict:
        """Adds a column: ``type`` is a catalog type name ("double",
        "decimal(10,2)", ...) or an Arrow type (any object with
        ``__arrow_c_schema__``, such as ``pa.float64()``), mapped as
        ``create_table`` maps a schema's fields. ``parent`` adds it inside a
        struct column."""
        if comment is not None:
            extra["comment"] = comment
        op = {"op": "add_column", "column": _column_def(name, type, nullable, extra)}
        if parent is not None:
            op["parent"] = parent
        return op

    @staticmethod
    def drop_column(name: str) -> dict:
        """Retires a column and its subtree (never a partition or sort source)."""
        return {"op": "drop_column", "name": name}

    @staticmethod
    def rename_column(name: str, to: str) -> dict:
        """Renames a column in place (``to`` is the bare new name); its field id is kept."""
        return {"op": "rename_column", "from": name, "to": to}

    @staticmethod
    def promote_column(name: str, to: str) -> dict:
        """Widens a scalar column's type (int to long, float to double, ...)."""
        return {"op": "promote_column", "name": name, "to": to}

    @staticmethod
    def drop_not_null(name: str) -> dict:
        """Makes a required column (or list element, map value) nullable."""
        return {"op": "drop_not_null", "name": name}

    @staticmethod
    def rename_table(new_name: str) -> dict:
        return {"op": "rename_table", "new_name": new_name}

    @staticmethod
    def partition_field(source_field_id: int, transform: str,
                        transform_param: _Optional[int] = None) -> dict:
        """One partition field: identity, bucket (N), truncate (W), year,
        month, day or hour of the column with that field id."""
        field = {"source_field_id": source_field_id, "transform": transform}
        if transform_param is not None:
            field["transform_param"] = transform_param
        return field

    @staticmethod
    def set_partition_spec(fields: list) -> dict:
        """Replaces the partition spec (``[]``: unpartitioned)."""
        return {"op": "set_partition_spec", "fields": list(fields)}

    @staticmethod
    def sort_field(source_field_id: int, descending: bool = False,
                   nulls_first: _Optional[bool] = None) -> dict:
        """One sort key; nulls first ascending and last descending unless said."""
        field = {"source_field_id": source_field_id,
                 "direction": "desc" if descending else "asc"}
        if nulls_first is not None:
            field["null_order"] = "nulls_first" if nulls_first else "nulls_last"
        return field

    @staticmethod
    def set_sort_order(fields: list) -> dict:
        """Replaces the sort order (``[]``: unsorted)."""
        return {"op": "set_sort_order", "sort_fields": list(fields)}

    @staticmethod
    def set_table_comment(comment: _Optional[str]) -> dict:
        return {"op": "set_table_comment", "comment": comment}

    @staticmethod
    def set_column_comment(name: str, comment: _Optional[str]) -> dict:
        return {"op": "set_column_comment", "name": name, "comment": comment}

    @staticmethod
    def set_properties(properties: dict) -> dict:
        """Replaces the whole custom property map (``{}`` clears it)."""
        return {"op": "set_properties", "properties": dict(properties)}

    @staticmethod
    def set_primary_timestamp_column(column: _Optional[str]) -> dict:
        """The column the Iceberg export partitions by day (None clears it)."""
        return {"op": "set_primary_timestamp_column", "column": column}


@_dataclass(frozen=True)
class S3Config:
    """The object store an s3:// catalog's data goes to. Fields left None
    fall back to the AWS_* environment variables."""

    access_key: _Optional[str] = None
    secret_key: _Optional[str] = None
    endpoint_override: _Optional[str] = None
    region: _Optional[str] = None
    session_token: _Optional[str] = None


class HoglakeClient(_hoglake.Client):
    """A connection to one hoglake server.

    server_url: default $HOGLAKE_URL, else http://localhost:8080.
    token: the bearer token (default $HOGLAKE_TOKEN).
    s3: an S3Config for s3:// catalogs.
    timeout / connect_timeout: seconds (default 60 and 10).
    single_request_uploads: an S3 object goes up in one PUT (the default);
    False streams it as a multipart upload (create, parts, complete).
    """

    def __init__(self, server_url: _Optional[str] = None, token: _Optional[str] = None, *,
                 s3: _Optional[S3Config] = None, timeout: _Optional[float] = None,
                 connect_timeout: _Optional[float] = None, ca_file: _Optional[str] = None,
                 single_request_uploads: bool = True):
        url = server_url or _os.environ.get("HOGLAKE_URL") or "http://localhost:8080"
        s3 = s3 or S3Config()
        self.server_url = url
        super().__init__(
            url, token,
            s3_endpoint=s3.endpoint_override, s3_region=s3.region,
            s3_access_key=s3.access_key, s3_secret_key=s3.secret_key,
            s3_session_token=s3.session_token, ca_file=ca_file,
            timeout_ms=int(timeout * 1000) if timeout else 0,
            connect_timeout_ms=int(connect_timeout * 1000) if connect_timeout else 0,
            streaming_uploads=not single_request_uploads,
        )


Client = HoglakeClient
