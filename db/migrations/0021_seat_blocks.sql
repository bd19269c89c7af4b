-- Seats kept out of sale (issue 11): blocked seats (broken, kept for
-- crew) for one show or for every show of a hall, and house seats held
-- back for one show. A row is a block in force; lifting it deletes the
-- row, and the audit trail keeps who blocked and lifted what, when.
--
-- Why a table of its own and not a claim status: seat_claims_one_live
-- and every hot query of the sale path name exactly the statuses 'held'
-- and 'sold'; a third live status would have to be added to each of
-- them, and a hall-wide block would be one claim per show to come.
CREATE TABLE seat_blocks (
	id         INTEGER PRIMARY KEY,
	show_id    INTEGER REFERENCES shows(id), -- NULL: every show of the hall starting after at
	hall_id    INTEGER NOT NULL REFERENCES halls(id),
	seat_id    INTEGER NOT NULL REFERENCES seats(id),
	kind       TEXT NOT NULL CHECK (kind IN ('blocked', 'house')),
	reason     TEXT NOT NULL DEFAULT '',
	blocked_by TEXT NOT NULL,
	at         INTEGER NOT NULL, -- unix milliseconds
	CHECK (show_id IS NOT NULL OR kind = 'blocked')
);
-- One block per seat of a show, and one hall-wide block per seat. A
-- show's blocks and a hall's hall-wide blocks are each a range of one.
CREATE UNIQUE INDEX seat_blocks_by_show ON seat_blocks(show_id, seat_id) WHERE show_id IS NOT NULL;
CREATE UNIQUE INDEX seat_blocks_hall_wide ON seat_blocks(hall_id, seat_id) WHERE show_id IS NULL;

-- The database refuses a live claim on a seat kept out of sale, whatever
-- the Go code does: two index probes per claimed seat (and the show's
-- row when the seat has a hall-wide block).
CREATE TRIGGER seat_claims_not_blocked BEFORE INSERT ON seat_claims
WHEN NEW.status IN ('held', 'sold') AND (
	EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id = NEW.show_id AND b.seat_id = NEW.seat_id)
	OR EXISTS (SELECT 1 FROM shows s JOIN seat_blocks b ON b.hall_id = s.hall_id AND b.seat_id = NEW.seat_id AND b.show_id IS NULL
		WHERE s.id = NEW.show_id AND b.at < s.starts_at * 1000))
BEGIN
	SELECT RAISE(ABORT, 'seat out of sale');
END;

-- seats.blocked (0001) is a hall's layout saying a seat is never sold.
-- It was read by the hold's checks only, so a seat set blocked by hand
-- still counted as free. It is mirrored here as a hall-wide block by
-- "layout": from the start of time for a layout's blocked seats, from
-- the moment of the change for one set by hand later.
INSERT INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at)
	SELECT NULL, hall_id, id, 'blocked', 'blocked in the hall layout', 'layout', 0 FROM seats WHERE blocked = 1;

CREATE TRIGGER seats_blocked_insert AFTER INSERT ON seats WHEN NEW.blocked = 1
BEGIN
	INSERT OR IGNORE INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at)
		VALUES (NULL, NEW.hall_id, NEW.id, 'blocked', 'blocked in the hall layout', 'layout', 0);
END;

CREATE TRIGGER seats_blocked_update AFTER UPDATE OF blocked ON seats WHEN NEW.blocked <> OLD.blocked
BEGIN
	DELETE FROM seat_blocks WHERE show_id IS NULL AND hall_id = NEW.hall_id AND seat_id = NEW.id AND blocked_by = 'layout' AND NEW.blocked = 0;
	INSERT OR IGNORE INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at)
		SELECT NULL, NEW.hall_id, NEW.id, 'blocked', 'blocked in the hall layout', 'layout', CAST(unixepoch('subsec') * 1000 AS INTEGER)
		WHERE NEW.blocked = 1;
END;
