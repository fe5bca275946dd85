-- Browser keys: the origins (one a line, as a browser sends them) whose pages may call with the
-- key; NULL for a key used by servers. The gate decides on them, so a change moves the access
-- version the replicas watch.
ALTER TABLE keys ADD COLUMN origins TEXT;

DROP TRIGGER keys_changed ON keys;
CREATE TRIGGER keys_changed
    AFTER INSERT OR DELETE OR UPDATE OF per_minute, burst, per_day, expires_at, revoked_at, suspended, account_id, origins
    ON keys FOR EACH STATEMENT EXECUTE FUNCTION access_changed();
