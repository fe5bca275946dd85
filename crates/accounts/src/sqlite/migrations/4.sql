-- Webhooks: the endpoints accounts registered, the events announced once, the outbox of messages
-- (one per endpoint and event, until delivered or given up) and the tries at delivering them. Their
-- numbers are never given out twice (AUTOINCREMENT): a late report of a try must not find another
-- message, or endpoint, under the number of one that was deleted meanwhile.

CREATE TABLE webhook_endpoints (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id      INTEGER NOT NULL REFERENCES accounts (id),
    url             TEXT    NOT NULL,
    description     TEXT    NOT NULL,
    -- 'standard' (signed JSON) or 'discord' (a Discord message).
    kind            TEXT    NOT NULL,
    -- The events it is told of, space-separated ('version.published key.expiring').
    events          TEXT    NOT NULL,
    -- whsec_...: signing needs the secret itself, so it is kept, not a hash of it.
    secret          TEXT    NOT NULL,
    -- The secret a rotation replaced, which still signs beside the new one until previous_until.
    previous_secret TEXT,
    previous_until  INTEGER,
    created_at      INTEGER NOT NULL,
    disabled_at     INTEGER,
    disabled_reason TEXT,
    -- The first failed try since the last delivery; NULL while deliveries succeed.
    failing_since   INTEGER
);
CREATE INDEX webhook_endpoints_by_account ON webhook_endpoints (account_id);

-- Each event announced once (a version published, a key's coming expiry): announcing it again, from
-- another replica or after a restart, finds its row and makes no message.
CREATE TABLE webhook_announcements (
    event      TEXT    NOT NULL,
    subject    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (event, subject)
) WITHOUT ROWID;

CREATE TABLE webhook_messages (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id     INTEGER NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    -- webhook-id: the same on every try.
    message_id      TEXT    NOT NULL UNIQUE,
    event           TEXT    NOT NULL,
    body            TEXT    NOT NULL,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    -- A worker that claimed it is delivering it until then; past it, another may. Its try is
    -- recorded only under the claim it was made with.
    claimed_until   INTEGER,
    claim           TEXT,
    -- Delivered or given up.
    done_at         INTEGER
);
CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at) WHERE done_at IS NULL;
CREATE INDEX webhook_messages_by_endpoint ON webhook_messages (endpoint_id);

CREATE TABLE webhook_attempts (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    message_id  INTEGER NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
    attempt     INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    status      INTEGER,
    duration_ms INTEGER NOT NULL,
    answer      TEXT    NOT NULL,
    error       TEXT,
    delivered   INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, id);
CREATE INDEX webhook_attempts_by_message ON webhook_attempts (message_id);
