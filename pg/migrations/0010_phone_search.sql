-- Find by phone: the phone's digits, last first, so "ends with the
-- digits typed" is a range of this index (pg/tx_bookings.go phoneRev).
-- Without it every search read every booking.
CREATE INDEX bookings_by_phone_rev ON bookings ((reverse(regexp_replace(phone, '[^0-9]', '', 'g')) COLLATE "C"), id)
	WHERE phone <> '';
