-- A printer belongs to a counter: the ESC/POS printer a registered
-- terminal's tickets and receipts go to, as booking.ParsePrinter reads it
-- (tcp://HOST:PORT or a device path on the server's machine), '' for
-- none. A session on a terminal without one gets PDF tickets instead.
ALTER TABLE terminals ADD COLUMN printer TEXT NOT NULL DEFAULT '' CHECK (length(printer) <= 200);
