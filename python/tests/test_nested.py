"""Nested values read into Python: a list, a struct and a map column,
written by the hoglake CLI from JSON Lines (plain-data appends take
scalars only), read back with to_pylist()."""

import json
import os
import shutil
import subprocess

import pytest

from hoglake import column


@pytest.fixture
def cli():
    binary = os.environ.get("HOGLAKE_CLI") or shutil.which("hoglake")
    if not binary:
        pytest.fail("the hoglake CLI was not found: set HOGLAKE_CLI")
    return binary


def test_list_struct_and_map_columns(server, catalog, cli, tmp_path):
    ns = catalog.create_namespace("ns")
    table = ns.create_table("t", [
        column("id", "long", nullable=False),
        column("tags", "list", children=[{"name": "element", "type": "long"}]),
        column("pt", "struct", children=[{"name": "x", "type": "long"},
                                         {"name": "label", "type": "string"}]),
        column("attrs", "map", children=[{"name": "key", "type": "string", "nullable": False},
                                         {"name": "value", "type": "double"}]),
    ])
    rows = [
        {"id": 1, "tags": [1, 2, None], "pt": {"x": 5, "label": "five"},
         "attrs": {"a": 1.5, "b": None}},
        {"id": 2, "tags": [], "pt": None, "attrs": {}},
        {"id": 3, "tags": None, "pt": {"x": None, "label": None}, "attrs": None},
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env["HOGLAKE_TOKEN"] = server.token
    done = subprocess.run([cli, "--server", server.base, "append", f"{catalog.name}.ns.t",
                           str(path)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = sorted(ns.table("t").read().to_pylist(), key=lambda r: r["id"])
    assert got == rows
