-- Browser keys: the origins (one a line, as a browser sends them) whose pages may call with the
-- key; NULL for a key used by servers.
ALTER TABLE keys ADD COLUMN origins TEXT;
