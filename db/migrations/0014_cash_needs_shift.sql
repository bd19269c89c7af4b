-- A cash payment belongs to an open shift of the person who took it: the
-- drawer it went into or came out of. The store sees to it (ErrNoShift);
-- this makes it true whatever writes the row. Card payments carry their
-- person's shift when one is open and need none.
CREATE TRIGGER payments_cash_needs_shift BEFORE INSERT ON payments
WHEN NEW.method = 'cash' AND (NEW.shift_id IS NULL
	OR NOT EXISTS (SELECT 1 FROM shifts s WHERE s.id = NEW.shift_id AND s.status = 'open' AND s.staff = NEW.staff))
BEGIN
	SELECT RAISE(ABORT, 'a cash payment needs an open shift of its staff');
END;

-- A shift is closed once and reopened only by its events: its float and
-- person never change, and a closed shift is not closed again without a
-- reopen in between.
CREATE TRIGGER shifts_fixed BEFORE UPDATE OF staff, float, opened_at ON shifts
WHEN NEW.staff IS NOT OLD.staff OR NEW.float IS NOT OLD.float OR NEW.opened_at IS NOT OLD.opened_at
BEGIN
	SELECT RAISE(ABORT, 'a shift keeps its person, float and opening');
END;
CREATE TRIGGER shift_events_no_update BEFORE UPDATE ON shift_events
BEGIN
	SELECT RAISE(ABORT, 'shift events are never changed');
END;
CREATE TRIGGER shift_events_no_delete BEFORE DELETE ON shift_events
BEGIN
	SELECT RAISE(ABORT, 'shift events are never deleted');
END;
CREATE TRIGGER shifts_no_delete BEFORE DELETE ON shifts
BEGIN
	SELECT RAISE(ABORT, 'shifts are never deleted');
END;
