-- A year of business must cost what a week costs: every search a counter,
-- the CLI or the sweeper runs routinely reads an index sized by what is
-- asked for, never a table that grows with history. db/plan_test.go
-- fails on a statement whose plan scans such a table.

-- A booking's payments (every booking load, Cancel's sale lookup).
CREATE INDEX payments_by_booking ON payments(booking_id);

-- A show's bookings (reports, the invariant check, the waiting list's
-- "did they buy" test).
CREATE INDEX bookings_by_show ON bookings(show_id);

-- A hall's shows near a time: AddShow's clash check reads only the shows
-- that could overlap the new one.
CREATE INDEX shows_by_hall ON shows(hall_id, starts_at);

-- Phone search. A clerk types the last digits of a number or the whole
-- number, in any layout ("020 7946 0018", "+44 20 7946 0018", "0018"):
-- the digits reversed turn "ends with" into a prefix, which an index
-- serves. Filled on insert (db/find.go reverseDigits) and back-filled by
-- this migration's Go step (db/db.go migrationSteps).
ALTER TABLE bookings ADD COLUMN phone_rev TEXT NOT NULL DEFAULT '';
CREATE INDEX bookings_by_phone ON bookings(phone_rev) WHERE phone_rev <> '';
ALTER TABLE waitlist ADD COLUMN phone_rev TEXT NOT NULL DEFAULT '';

-- Name search: one row per word of a booking's customer name, folded
-- (lower case, no accents; db/find.go nameWords). A clerk types the start
-- of a first or last name; a prefix range on word finds the bookings.
CREATE TABLE booking_words (
	word       TEXT NOT NULL,
	booking_id INTEGER NOT NULL REFERENCES bookings(id),
	PRIMARY KEY (word, booking_id)
) WITHOUT ROWID;

-- A show's waiting list in order. The waiting list is read only for
-- shows still on sale (found through shows_by_start), so the two partial
-- indexes of 0001/0002, which grew with every show ever played, go.
CREATE INDEX waitlist_by_show ON waitlist(show_id, created_at, id);
DROP INDEX waitlist_waiting;
DROP INDEX waitlist_to_call;
