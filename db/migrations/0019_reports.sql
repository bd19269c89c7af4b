-- Reports read a range of days (db/reports.go). Takings and occupancy
-- read payments_by_at and shows_by_start, which are there already; the
-- two reports that list only a few rows of a big range get partial
-- indexes of their own, so a year's refunds or no-shows cost what they
-- list, not every payment or booking of the year.

-- Refunds by when they were paid out: a refund is rare beside a sale, so
-- the index costs a sale nothing.
CREATE INDEX payments_refunds_by_at ON payments(at) WHERE kind = 'refund';

-- Bookings nobody came for, by show: a booking enters it only when it is
-- marked no_show after its show.
CREATE INDEX bookings_no_show ON bookings(show_id) WHERE status = 'no_show';
