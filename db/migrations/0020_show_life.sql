-- A show's whole life (booking/showlife.go): a show can be cancelled
-- (with why, by whom and when), sells until its own sales close or the
-- cinema's default (meta 'sales_close', seconds after the start; 30 min
-- when unset), and is settled once it ended: the sweeper moves its
-- confirmed bookings to completed or no_show.

ALTER TABLE shows ADD COLUMN status TEXT NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'cancelled'));
ALTER TABLE shows ADD COLUMN cancel_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE shows ADD COLUMN cancelled_by TEXT NOT NULL DEFAULT '';
ALTER TABLE shows ADD COLUMN cancelled_at INTEGER;    -- unix milliseconds
-- Seconds after the start (negative: before it); NULL follows the default.
ALTER TABLE shows ADD COLUMN sales_close INTEGER CHECK (sales_close BETWEEN -86400 AND 3600);
-- When the sweeper was done with the show: it settled its bookings after
-- the end, or the show was cancelled (CancelShow refunds them instead).
ALTER TABLE shows ADD COLUMN settled_at INTEGER;      -- unix milliseconds

-- The shows the sweeper may still have to settle, by start: after a year
-- of programme it holds the week ahead and the shows on now, so a sweep
-- reads a few rows, not the year.
CREATE INDEX shows_to_settle ON shows(starts_at) WHERE settled_at IS NULL;
