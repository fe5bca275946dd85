-- Game data published for every replica (`tapster publish`): each generation is one served game
-- database, stored compressed in chunks, with its SHA-256 and size as served, the game versions it
-- holds, and who published it when. At most one generation is current: the one every replica serves.
CREATE TABLE generations (
    number       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sha256       BYTEA  NOT NULL CHECK (length(sha256) = 32),
    size         BIGINT NOT NULL CHECK (size >= 0),
    stored       BIGINT NOT NULL CHECK (stored >= 0),
    chunks       INT    NOT NULL CHECK (chunks >= 0),
    versions     TEXT[] NOT NULL,
    published_at BIGINT NOT NULL,
    published_by TEXT   NOT NULL
);

CREATE TABLE generation_chunks (
    generation BIGINT NOT NULL REFERENCES generations (number) ON DELETE CASCADE,
    index      INT    NOT NULL CHECK (index >= 0),
    bytes      BYTEA  NOT NULL,
    PRIMARY KEY (generation, index)
);

-- One row once a generation is published: the current one, which can never be deleted.
CREATE TABLE current_generation (
    one    BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    number BIGINT  NOT NULL REFERENCES generations (number)
);
