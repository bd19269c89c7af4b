-- Each refund keeps the reason typed with it: a booking refunded seat by
-- seat may have a reason per refund, and the booking's own reason is
-- only its cancel's. Every refund written from now on says one ('' for
-- none given); the refunds made before read NULL, and the refunds report
-- shows their booking's reason for them, as it did.
ALTER TABLE payments ADD COLUMN reason TEXT;
