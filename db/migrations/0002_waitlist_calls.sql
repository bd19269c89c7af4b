-- A notified waiting-list customer stays on every counter's banner until
-- a clerk has called them; called_at is claimed by compare-and-set so two
-- counters do not both ring the same customer.
ALTER TABLE waitlist ADD COLUMN called_at INTEGER;
ALTER TABLE waitlist ADD COLUMN called_by TEXT NOT NULL DEFAULT '';
CREATE INDEX waitlist_to_call ON waitlist(notified_at) WHERE notified_at IS NOT NULL AND called_at IS NULL;
