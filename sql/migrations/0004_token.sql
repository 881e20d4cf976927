-- hoglake catalog schema, version 4: API tokens.
--
-- A token is a random secret the server showed once; only its SHA-256 is
-- kept (secret_hash), so the table never holds anything a caller could
-- present. Lookups are by that hash. Every replica reads this table (with a
-- cache of a few seconds), so a revocation reaches all of them without any
-- message between replicas.
--
-- role: reader < writer < owner, optionally scoped to one catalog (the
-- token dies with it); admin is instance-wide only.
CREATE TABLE hog_token (
    token_id     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    role         text NOT NULL CHECK (role IN ('reader', 'writer', 'owner', 'admin')),
    catalog_id   bigint REFERENCES hog_catalog ON DELETE CASCADE,
    secret_hash  bytea NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    revoked_at   timestamptz,
    -- The token whose holder created this one (NULL: the server's bootstrap).
    created_by   uuid,
    CHECK (role <> 'admin' OR catalog_id IS NULL),
    CHECK (expires_at IS NULL OR expires_at > created_at)
);
