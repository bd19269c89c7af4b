-- The cinema's books (docs/books.md; the rules are booking's books.go and
-- distributor.go): the film hire agreed with each film's distributor, a
-- terminal's cash drawer, and the closed days.
--
-- film_hire is every hire ever set for a film's run (week 0) or one week
-- of it; the last row of a film and week is in force. Rows are appended,
-- never changed, so a return printed last month can be explained.
CREATE TABLE film_hire (
	id      INTEGER PRIMARY KEY,
	film_id INTEGER NOT NULL REFERENCES films(id),
	week    INTEGER NOT NULL CHECK (week BETWEEN 0 AND 104),
	rate    INTEGER NOT NULL CHECK (rate BETWEEN 0 AND 10000),
	set_by  TEXT NOT NULL,
	set_at  INTEGER NOT NULL
);
CREATE INDEX film_hire_by_film ON film_hire(film_id);
CREATE TRIGGER film_hire_no_update BEFORE UPDATE ON film_hire
BEGIN
	SELECT RAISE(ABORT, 'film hire is never changed: set it again');
END;
CREATE TRIGGER film_hire_no_delete BEFORE DELETE ON film_hire
BEGIN
	SELECT RAISE(ABORT, 'film hire is never deleted: set it again');
END;

-- Whether a terminal's printer opens the cash drawer (ESC p) on a cash
-- sale, a cash refund and a float count: on unless a manager turns it off.
ALTER TABLE terminals ADD COLUMN drawer INTEGER NOT NULL DEFAULT 1 CHECK (drawer IN (0, 1));

-- day_closes keeps each closed day's report as it was made, once per site
-- and day; it is printed again from here and never changed.
CREATE TABLE day_closes (
	site      INTEGER NOT NULL CHECK (site >= 0),
	day       TEXT NOT NULL CHECK (length(day) = 10),
	closed_by TEXT NOT NULL,
	closed_at INTEGER NOT NULL,
	report    TEXT NOT NULL CHECK (length(report) <= 1000000),
	PRIMARY KEY (site, day)
) WITHOUT ROWID;
CREATE TRIGGER day_closes_no_update BEFORE UPDATE ON day_closes
BEGIN
	SELECT RAISE(ABORT, 'a closed day is never changed');
END;
CREATE TRIGGER day_closes_no_delete BEFORE DELETE ON day_closes
BEGIN
	SELECT RAISE(ABORT, 'a closed day is never deleted');
END;
