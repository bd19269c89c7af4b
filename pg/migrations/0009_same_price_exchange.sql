-- An exchange at the same price writes a 0.00 sale (the method later
-- refunds of its tickets go back by) and moves no cash: it needs no
-- drawer, as on SQLite (its 0022). A cash payment of any other amount
-- still belongs to a shift. payments_check3 is 0001's CHECK (method <>
-- 'cash' OR shift_id IS NOT NULL), the payments table's fourth.
ALTER TABLE payments DROP CONSTRAINT payments_check3;
ALTER TABLE payments ADD CONSTRAINT payments_cash_needs_shift CHECK (method <> 'cash' OR amount = 0 OR shift_id IS NOT NULL);
