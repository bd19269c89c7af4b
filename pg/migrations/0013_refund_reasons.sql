-- Each refund keeps the reason typed with it, as SQLite's 0030: '' for
-- none given, NULL for the refunds made before (the refunds report shows
-- their booking's reason).
ALTER TABLE payments ADD COLUMN reason text;
