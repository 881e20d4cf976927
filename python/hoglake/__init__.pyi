import datetime
from typing import Any, Iterable, Mapping, NamedTuple, Optional, Sequence, Union

_At = Union[str, datetime.datetime, None]

class HoglakeError(Exception):
    detail: str
    status: str
    code: str
    http_status: int
    retryable: bool
    re_prepare: bool
    def __init__(self, detail: str, *, status: str = ..., code: Optional[str] = ...,
                 http_status: int = ..., retryable: bool = ..., re_prepare: bool = ...) -> None: ...

class InvalidArgumentError(HoglakeError, ValueError): ...
class ValidationError(HoglakeError, ValueError): ...
class BadRequestError(HoglakeError, ValueError): ...
class NotFoundError(HoglakeError, LookupError): ...
class AlreadyExistsError(HoglakeError): ...
class CommitConflictError(HoglakeError): ...
class DdlSinceReadSnapshotError(HoglakeError): ...
class IncarnationChangedError(HoglakeError): ...
class TableDroppedError(HoglakeError): ...
class ExpiredError(HoglakeError): ...
class UnavailableError(HoglakeError): ...
class HoglakeTimeoutError(HoglakeError, TimeoutError): ...
class TransportError(HoglakeError, OSError): ...
class ProtocolError(HoglakeError): ...
class ServerError(HoglakeError): ...
class NotImplementedByServerError(HoglakeError): ...
class AuthenticationError(HoglakeError): ...
class PermissionDeniedError(HoglakeError): ...
class CancelledError(HoglakeError): ...

NotFound = NotFoundError
CommitConflict = CommitConflictError
DdlSinceReadSnapshot = DdlSinceReadSnapshotError
IncarnationChanged = IncarnationChangedError
Expired = ExpiredError

class _Unguarded: ...

UNGUARDED: _Unguarded

class Record(dict[str, Any]):
    def __getattr__(self, name: str) -> Any: ...

class AppendedFile(NamedTuple):
    path: str
    record_count: int
    file_size_bytes: int
    partition_values: tuple[Optional[str], ...]

class AppendResult(NamedTuple):
    snapshot_id: Optional[int]
    schema_version: int
    files: list[AppendedFile]

class Column(NamedTuple):
    field_id: int
    name: str
    type: str
    nullable: bool
    precision: int
    scale: int
    type_params: Optional[dict[str, Any]]
    comment: Optional[str]
    children: list[Column]

class PartitionField(NamedTuple):
    source_field_id: int
    transform: str
    transform_param: int

class SortField(NamedTuple):
    source_field_id: int
    descending: bool
    nulls_first: bool

class TableInfo(NamedTuple):
    name: str
    namespace: str
    table_uuid: str
    comment: Optional[str]
    primary_timestamp_column: Optional[str]
    properties: dict[str, str]
    read_snapshot_id: int
    record_count: Optional[int]
    file_count: Optional[int]
    file_size_bytes: Optional[int]
    totals_snapshot_id: Optional[int]
    columns: list[Column]
    spec_id: Optional[int]
    partition_fields: list[PartitionField]
    sort_id: Optional[int]
    sort_fields: list[SortField]

class DataFile(NamedTuple):
    data_file_id: int
    path: str
    record_count: int
    file_size_bytes: int
    row_id_start: int
    begin_snapshot: int
    stats_state: str
    explicit_row_ids: bool
    footer_size: Optional[int]
    spec_id: Optional[int]
    partition_values: tuple[Optional[str], ...]

class DeleteFile(NamedTuple):
    delete_file_id: int
    data_file_id: int
    path: str
    delete_count: int
    file_size_bytes: int
    begin_snapshot: int

class ScanFile(NamedTuple):
    data_file: DataFile
    delete_file: Optional[DeleteFile]

class ChangeDeleteFile(NamedTuple):
    delete_file: DeleteFile
    data_file: DataFile
    superseded: Optional[DeleteFile]

class ChangesPlan(NamedTuple):
    table_uuid: str
    from_snapshot: int
    to_snapshot: int
    files: list[DataFile]
    delete_files: list[ChangeDeleteFile]

class Snapshot(NamedTuple):
    snapshot_id: int
    schema_version: int
    snapshot_time: str
    author: Optional[str]
    message: Optional[str]
    changes: Optional[list[Record]]

class CatalogOptions(NamedTuple):
    snapshot_retention_seconds: Optional[int]
    consumer_floor: bool
    earliest_snapshot_id: int

class ExpireResult(NamedTuple):
    snapshots_expired: int
    data_files_queued: int
    delete_files_queued: int
    new_earliest_snapshot_id: int
    floored_by_consumer: bool
    offsets_released: int
    purge_pages: int
    purge_truncated: bool

class CleanupResult(NamedTuple):
    removed: int
    missing: int
    still_referenced: int
    refused: int
    settled_elsewhere: int
    failed: int
    ledger_purged: int
    receipts_purged: int

class CompactResult(NamedTuple):
    groups_compacted: int
    files_in: int
    files_out: int
    bytes_in: int
    bytes_out: int
    skipped_conflicts: int
    failed_groups: int
    claimed_elsewhere: int
    dvs_applied: int
    rows_dropped: int
    candidates_files: int
    left_too_few_files: int
    left_over_budget_files: int
    left_claimed_files: int
    batch_reached: bool

class HydrateResult(NamedTuple):
    hydrated: int
    failed: int
    transient_errors: int
    still_pending: int

class S3Config:
    access_key: Optional[str]
    secret_key: Optional[str]
    endpoint_override: Optional[str]
    region: Optional[str]
    session_token: Optional[str]
    def __init__(self, access_key: Optional[str] = ..., secret_key: Optional[str] = ...,
                 endpoint_override: Optional[str] = ..., region: Optional[str] = ...,
                 session_token: Optional[str] = ...) -> None: ...

class Reader:
    def __arrow_c_stream__(self, requested_schema: Any = ...) -> Any: ...
    def __arrow_c_schema__(self) -> Any: ...
    def to_pylist(self) -> list[dict[str, Any]]: ...

class Table:
    @property
    def name(self) -> str: ...
    @property
    def table_uuid(self) -> str: ...
    @property
    def ddl_snapshot(self) -> Optional[int]: ...
    @property
    def columns(self) -> list[Column]: ...
    def info(self, *, snapshot: Optional[int] = ..., at_timestamp: _At = ...) -> TableInfo: ...
    def files(self, *, snapshot: Optional[int] = ...,
              at_timestamp: _At = ...) -> list[DataFile]: ...
    def scan_plan(self, *, snapshot: Optional[int] = ...,
                  at_timestamp: _At = ...) -> list[ScanFile]: ...
    def changes(self, from_snapshot: int = ...,
                to_snapshot: Optional[int] = ...) -> ChangesPlan: ...
    def read_changes(self, from_snapshot: int, to_snapshot: Optional[int] = ...) -> Reader: ...
    def alter(self, ops: Sequence[Mapping[str, Any]]) -> TableInfo: ...
    def drop(self) -> int: ...
    def invalidate(self) -> None: ...
    def append(self, data: Any, *, author: Optional[str] = ..., message: Optional[str] = ...,
               deferred_stats: bool = ...,
               expected_table_uuid: Union[str, _Unguarded, None] = ...,
               unguarded: bool = ..., idempotency_key: Optional[str] = ...) -> AppendResult: ...
    def prepare_append(self, data: Any, *, idempotency_key: str,
                       expected_table_uuid: Optional[str] = ...,
                       expected_table_info: Optional[TableInfo] = ...) -> str: ...
    def prepare_append_tables(
        self, groups: Sequence[tuple[Any, Optional[Sequence[Optional[str]]]]], *,
        idempotency_key: str, expected_table_uuid: Optional[str] = ...,
        expected_table_info: Optional[TableInfo] = ...) -> str: ...
    def prepare_append_files(
        self, files: Sequence[Union[str, tuple[str, Optional[Sequence[Optional[str]]]]]], *,
        idempotency_key: str, expected_table_uuid: Optional[str] = ...,
        expected_table_info: Optional[TableInfo] = ...,
        allow_optional_fields: bool = ...) -> str: ...
    def commit_prepared(self, payload: str) -> int: ...
    def read(self, *, snapshot: Optional[int] = ..., at_timestamp: _At = ...,
             columns: Optional[Sequence[str]] = ..., where: Optional[str] = ...,
             limit: Optional[int] = ...) -> Reader: ...
    def scan(self, *, snapshot: Optional[int] = ..., at_timestamp: _At = ...,
             columns: Optional[Sequence[str]] = ..., where: Optional[str] = ...,
             limit: Optional[int] = ...) -> Reader: ...

class Namespace:
    name: str
    catalog: Catalog
    def create_table(self, name: str, columns: Union[Any, str, Sequence[Mapping[str, Any]]],
                     properties: Optional[Mapping[str, Any]] = ...) -> Table: ...
    def table(self, name: str) -> Table: ...
    def create_view(self, name: str, sql: str, dialect: Optional[str] = ...) -> Record: ...

class Snapshots:
    def __iter__(self) -> Snapshots: ...
    def __next__(self) -> Snapshot: ...

class Catalog:
    @property
    def name(self) -> str: ...
    @property
    def data_path(self) -> str: ...
    def create_namespace(self, name: str) -> Namespace: ...
    def namespace(self, name: str) -> Namespace: ...
    def refresh(self) -> Record: ...
    def commit_offset(self, consumer_id: str, table_uuid: str, snapshot_id: int) -> None: ...
    def offset(self, consumer_id: str, table_uuid: str) -> Optional[int]: ...
    def commit_prepared(self, payload: str, *, table: Optional[Table] = ...) -> int: ...
    def expire(self, *, batch: Optional[int] = ...) -> ExpireResult: ...
    def cleanup(self, *, batch: Optional[int] = ...) -> CleanupResult: ...
    def hydrate(self, *, batch: Optional[int] = ...) -> HydrateResult: ...
    def compact(self, *, batch: Optional[int] = ...) -> CompactResult: ...
    def options(self) -> CatalogOptions: ...
    def snapshots(self, *, after: int = ..., before: Optional[int] = ...,
                  limit: int = ...) -> Snapshots: ...
    def resolve_snapshot(self, at_timestamp: Union[str, datetime.datetime]) -> Snapshot: ...
    def set_retention(self, seconds: Optional[int],
                      consumer_floor: Optional[bool] = ...) -> CatalogOptions: ...

class HoglakeClient:
    server_url: str
    def __init__(self, server_url: Optional[str] = ..., token: Optional[str] = ..., *,
                 s3: Optional[S3Config] = ..., timeout: Optional[float] = ...,
                 connect_timeout: Optional[float] = ..., ca_file: Optional[str] = ...,
                 single_request_uploads: bool = ...) -> None: ...
    def create_catalog(self, name: str, data_path: str) -> Catalog: ...
    def catalog(self, name: str) -> Catalog: ...
    def list_catalogs(self) -> list[Record]: ...

Client = HoglakeClient

def column(name: str, type: str, nullable: bool = ..., **extra: Any) -> dict[str, Any]: ...

class ops:
    @staticmethod
    def add_column(name: str, type: Any, nullable: bool = ..., *, parent: Optional[str] = ...,
                   comment: Optional[str] = ..., **extra: Any) -> dict[str, Any]: ...
    @staticmethod
    def drop_column(name: str) -> dict[str, Any]: ...
    @staticmethod
    def rename_column(name: str, to: str) -> dict[str, Any]: ...
    @staticmethod
    def promote_column(name: str, to: str) -> dict[str, Any]: ...
    @staticmethod
    def drop_not_null(name: str) -> dict[str, Any]: ...
    @staticmethod
    def rename_table(new_name: str) -> dict[str, Any]: ...
    @staticmethod
    def partition_field(source_field_id: int, transform: str,
                        transform_param: Optional[int] = ...) -> dict[str, Any]: ...
    @staticmethod
    def set_partition_spec(fields: Iterable[Mapping[str, Any]]) -> dict[str, Any]: ...
    @staticmethod
    def sort_field(source_field_id: int, descending: bool = ...,
                   nulls_first: Optional[bool] = ...) -> dict[str, Any]: ...
    @staticmethod
    def set_sort_order(fields: Iterable[Mapping[str, Any]]) -> dict[str, Any]: ...
    @staticmethod
    def set_table_comment(comment: Optional[str]) -> dict[str, Any]: ...
    @staticmethod
    def set_column_comment(name: str, comment: Optional[str]) -> dict[str, Any]: ...
    @staticmethod
    def set_properties(properties: Mapping[str, str]) -> dict[str, Any]: ...
    @staticmethod
    def set_primary_timestamp_column(column: Optional[str]) -> dict[str, Any]: ...
