-- The manager screens (issue 11). A retired film keeps its shows but gets
-- no new ones; a film's shows are found by film when its running time
-- changes, so the check that none of them now overlaps reads those few,
-- not every show.
ALTER TABLE films ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
CREATE INDEX shows_by_film ON shows(film_id, starts_at);
