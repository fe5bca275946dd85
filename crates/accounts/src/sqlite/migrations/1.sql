CREATE TABLE accounts (
    id         INTEGER PRIMARY KEY,
    email      TEXT    NOT NULL UNIQUE,
    confirmed  INTEGER NOT NULL,
    suspended  INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE TABLE keys (
    id           INTEGER PRIMARY KEY,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    name         TEXT    NOT NULL,
    prefix       TEXT    NOT NULL,
    sha256       BLOB    NOT NULL UNIQUE,
    per_minute   INTEGER NOT NULL,
    burst        INTEGER NOT NULL,
    per_day      INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER,
    suspended    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX keys_by_prefix ON keys (prefix);
CREATE TABLE blocked_addresses (
    block      TEXT    PRIMARY KEY,
    created_at INTEGER NOT NULL
);
-- Requests each key made on each UTC day (days since 1970-01-01).
CREATE TABLE daily_usage (
    key_id   INTEGER NOT NULL REFERENCES keys (id),
    day      INTEGER NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (key_id, day)
) WITHOUT ROWID;
