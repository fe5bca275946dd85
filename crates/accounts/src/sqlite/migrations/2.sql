CREATE TABLE accounts_v2 (
    id               INTEGER PRIMARY KEY,
    -- The confirmed address; NULL until one is confirmed, and once the account is deleted.
    email            TEXT    UNIQUE,
    -- An address a provider gave without vouching for it: shown, never matched.
    pending_email    TEXT,
    suspended        INTEGER NOT NULL DEFAULT 0,
    suspended_reason TEXT,
    created_at       INTEGER NOT NULL,
    deleted_at       INTEGER
);
INSERT INTO accounts_v2 (id, email, pending_email, suspended, created_at)
    SELECT id,
           CASE WHEN confirmed THEN email END,
           CASE WHEN confirmed THEN NULL ELSE email END,
           suspended,
           created_at
    FROM accounts;
DROP TABLE accounts;
ALTER TABLE accounts_v2 RENAME TO accounts;

ALTER TABLE keys ADD COLUMN expires_at INTEGER;
CREATE INDEX keys_by_account ON keys (account_id);

-- An external sign-in: the provider's numeric user id, never its login name or address.
CREATE TABLE identities (
    id         INTEGER PRIMARY KEY,
    provider   TEXT    NOT NULL,
    subject    TEXT    NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    login      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (provider, subject)
);
CREATE INDEX identities_by_account ON identities (account_id);

-- One-time links mailed to an address; account_id is set when an account asked to confirm it.
CREATE TABLE email_tokens (
    sha256     BLOB    PRIMARY KEY,
    email      TEXT    NOT NULL,
    account_id INTEGER REFERENCES accounts (id),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    spent_at   INTEGER
) WITHOUT ROWID;
CREATE INDEX email_tokens_by_email ON email_tokens (email, created_at);

CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY,
    sha256       BLOB    NOT NULL UNIQUE,
    account_id   INTEGER NOT NULL REFERENCES accounts (id),
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    user_agent   TEXT    NOT NULL
);
CREATE INDEX sessions_by_account ON sessions (account_id);
