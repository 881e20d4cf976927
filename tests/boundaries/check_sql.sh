#!/usr/bin/env bash
# The server's SQL lives in one layer: src/server/store/ (the catalog's
# tables, one module per family) over the driver in src/server/db/. A C file
# anywhere else in src/ that holds SQL text fails this test. A file listed
# in not_yet_moved may still hold its own while it moves (issue 15 emptied
# the list); the list only shrinks, and a listed file that no longer holds
# SQL fails too, so the list cannot go stale.
#
#   check_sql.sh SRC_DIR
set -euo pipefail
src=${1:?usage: check_sql.sh SRC_DIR}

# A string literal that starts a statement or ends a transaction (the
# store's callers own transactions through db_begin/db_commit/db_rollback),
# or names a catalog table.
statement='"[[:space:]]*(SELECT|INSERT|UPDATE|DELETE|WITH|LOCK)[[:space:]]|"(BEGIN|COMMIT|ROLLBACK)[" ]|(FROM|INTO|UPDATE|JOIN|TABLE)[[:space:]]+hog_[a-z_]+'

not_yet_moved=()

# ${a[@]+"${a[@]}"}: an empty array expands to nothing under set -u in
# every bash (before 4.4, "${a[@]}" of an empty one is an unbound variable).

failed=0
mapfile -t holders < <(cd "$src" && grep -rlE "$statement" --include='*.c' --include='*.h' . |
                         sed 's|^\./||' | grep -vE '^server/(store|db)/' | sort)
for f in ${holders[@]+"${holders[@]}"}; do
    listed=0
    for allowed in ${not_yet_moved[@]+"${not_yet_moved[@]}"}; do
        [[ "$f" == "$allowed" ]] && listed=1
    done
    if ((!listed)); then
        echo "SQL outside server/store: $f" >&2
        grep -nE "$statement" "$src/$f" | head -3 >&2
        failed=1
    fi
done
for allowed in ${not_yet_moved[@]+"${not_yet_moved[@]}"}; do
    if ! grep -qE "$statement" "$src/$allowed" 2>/dev/null; then
        echo "no SQL left in $allowed: take it off not_yet_moved" >&2
        failed=1
    fi
done
if ((failed)); then
    exit 1
fi
if ((${#not_yet_moved[@]})); then
    echo "SQL only in server/store and server/db, plus ${#not_yet_moved[@]} files still to move"
else
    echo "SQL only in server/store and server/db"
fi
