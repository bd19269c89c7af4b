-- The public kiosk's guards (docs/kiosk.md; the rules are booking's
-- kioskguard.go).
--
-- collect_guesses counts the kiosk's collect tries per key ('number BO-…'
-- for the number typed, whether or not a booking has it, and 'addr …'
-- for where the kiosk is), before any digits are compared: tries since
-- the key's last pause, the pauses it has begun, when the pause in force
-- ends and when it was last tried (unix milliseconds; 0: never). A row
-- may go once keep_until has passed.
CREATE TABLE collect_guesses (
	key          TEXT PRIMARY KEY,
	tries        INTEGER NOT NULL DEFAULT 0 CHECK (tries >= 0),
	pauses       INTEGER NOT NULL DEFAULT 0 CHECK (pauses >= 0),
	paused_until INTEGER NOT NULL DEFAULT 0,
	last_at      INTEGER NOT NULL DEFAULT 0,
	keep_until   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX collect_guesses_by_keep ON collect_guesses(keep_until);

-- kiosk_holds names each hold a kiosk made, with where the kiosk was and
-- how many seats: the kiosks' share of a show is the seats of its live
-- holds named here (a kiosk's reservation keeps its hold), and an
-- address's holds let go unbooked ('let go', or '' once the hold lapsed)
-- slow its next. 'moved' is a block the customer shifted; 'reserved' one
-- that became a reservation.
CREATE TABLE kiosk_holds (
	hold_id    INTEGER PRIMARY KEY REFERENCES holds(id),
	show_id    INTEGER NOT NULL,
	addr       TEXT NOT NULL,
	seats      INTEGER NOT NULL CHECK (seats > 0),
	created_at INTEGER NOT NULL,
	ended_at   INTEGER,
	outcome    TEXT NOT NULL DEFAULT '' CHECK (outcome IN ('', 'moved', 'reserved', 'let go'))
);
CREATE INDEX kiosk_holds_by_addr ON kiosk_holds(addr, created_at);
CREATE INDEX kiosk_holds_by_created ON kiosk_holds(created_at) WHERE outcome <> 'reserved';

-- Wrong PINs typed after a kiosk's staff chord count here, apart from a
-- counter's sign-in, with the same bound: a customer at a public kiosk
-- cannot lock a name out of the counters.
CREATE TABLE kiosk_unlock_failures (
	name         TEXT PRIMARY KEY COLLATE NOCASE,
	failures     INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
	locked_until INTEGER NOT NULL DEFAULT 0
);
