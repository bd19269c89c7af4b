-- The indexes the plan guard (pg/planguard_test.go), run on its history
-- and on a year carried from SQLite, found missing: each is a statement a
-- counter, the sweeper or a manager's screen runs that read a table of
-- the whole history, on a database that has a year.
-- SQLite has the same indexes under the same names (bookings_by_show,
-- audit_by_actor, reservations_by_*, shifts_by_opened, waitlist_waiting,
-- waitlist_to_call).

-- A show's bookings: settling it (completed, no-shows), cancelling it
-- (its bookings in id order, its cash to give back, its refunds), and
-- whether a show may move or be deleted.
CREATE INDEX bookings_by_show ON bookings(show_id, id);

-- The seal loop's every tick reads the newest sealed audit row: a walk
-- back from the end of the trail that, on a trail sealed by an older
-- server or never, read it all.
CREATE INDEX audit_sealed ON audit(id) WHERE hash IS NOT NULL;

-- The audit screen's newest page, filtered by day or not, in the order
-- it shows (at, id): one walk back from the end, stopped by its LIMIT.
DROP INDEX audit_by_at;
CREATE INDEX audit_by_at ON audit(at, id);
-- One person's rows, by day or not (the audit screen's staff filter): on
-- a year, a name with no rows read all 410 000 through audit_by_at.
CREATE INDEX audit_by_actor ON audit(lower(actor), at, id);

-- The kiosk: reservations by phone (paid or not, newest first), one
-- address's recent reservations (its rate limit), and the reservations
-- report's range of days.
CREATE INDEX reservations_by_phone ON reservations(phone_digits, created_at);
CREATE INDEX reservations_by_addr ON reservations(addr, created_at);
CREATE INDEX reservations_by_created ON reservations(created_at);

-- The shifts report's range of days.
CREATE INDEX shifts_by_opened ON shifts(opened_at);

-- The waiting list, as the sweeper reads it every tick: those of shows to
-- come still waiting to be told, and those told and not yet called.
-- Partial: each holds what is open now, not the years behind it.
CREATE INDEX waitlist_waiting ON waitlist(show_id, created_at) WHERE notified_at IS NULL;
CREATE INDEX waitlist_to_call ON waitlist(notified_at) WHERE notified_at IS NOT NULL AND called_at IS NULL;
