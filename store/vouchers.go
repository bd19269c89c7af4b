package store

import (
	"context"
	"time"

	"boxoffice/booking"
)

// Vouchers (booking/vouchers.go): a sale takes a use by one guarded
// statement (RedeemVoucher: "… SET uses_left = uses_left - 1 WHERE code
// = ? AND uses_left > 0"), which the engine runs on the newest version of
// the row whoever else is selling; a sale it refuses rolls back whole,
// so its hold stays held and nothing of it is written. A cancel gives the
// use back once: the redemption moves to returned by compare-and-set
// (ReturnRedemption) before the count goes up, inside the unwind that
// claimed the booking's status first.

// VouchersTx is what the vouchers ask of a transaction.
type VouchersTx interface {
	// InsertVoucher adds a voucher at the transaction's time; ok is
	// false, and nothing is written, when its code is taken.
	InsertVoucher(v booking.Voucher) (id int64, ok bool, err error)
	// RedeemVoucher takes one use of the voucher with code in one guarded
	// statement, when it is not retired, not expired at the
	// transaction's time and has a use left, and returns it as it is
	// now. ok is false, and nothing changed, otherwise (or when no
	// voucher has the code).
	RedeemVoucher(code string) (v booking.Voucher, ok bool, err error)
	// VoucherForUpdate reads a voucher, its row locked; found is false
	// when no voucher has the code.
	VoucherForUpdate(code string) (v booking.Voucher, found bool, err error)
	// RetireVoucher retires a voucher by compare-and-set; false when it
	// was retired already.
	RetireVoucher(voucherID int64) (bool, error)
	// InsertRedemption writes one use of a voucher by a booking at the
	// transaction's time. The engine refuses a second of one booking.
	InsertRedemption(r RedemptionRow) error
	// ReturnRedemption marks the booking's redemption returned at the
	// transaction's time by compare-and-set and returns its voucher;
	// ok is false when it has none standing (none, or returned already).
	ReturnRedemption(bookingID int64) (voucherID int64, ok bool, err error)
	// GiveBackUse puts one use back on a voucher.
	GiveBackUse(voucherID int64) error
}

// VoucherReads are the reads of vouchers outside a transaction.
type VoucherReads interface {
	// ReadVouchers lists every voucher by code.
	ReadVouchers(ctx context.Context) ([]booking.Voucher, error)
	// VoucherUses reads the redemptions of the bookings ids, one a
	// booking that has one, in any order.
	VoucherUses(ctx context.Context, ids []int64) ([]VoucherUseRow, error)
	// VoucherRedemptions lists the redemptions made in [w.From, w.To),
	// oldest first, with their bookings' numbers (every site).
	VoucherRedemptions(ctx context.Context, w ReportWindow) ([]booking.VoucherRedemption, error)
}

// VoucherUseRow is the voucher a booking used.
type VoucherUseRow struct {
	BookingID int64
	booking.VoucherUse
}

// RedemptionRow is one use of a voucher as a driver writes it.
type RedemptionRow struct {
	VoucherID, BookingID int64
	Code                 string
	Discount             booking.Money
	Staff                string
}

// AddVoucher adds a voucher.
func (s *Store) AddVoucher(ctx context.Context, actor booking.Actor, v booking.Voucher) (*booking.Voucher, error) {
	if err := booking.Authorize(actor, booking.ActionManageVouchers); err != nil {
		return nil, err
	}
	v, err := booking.ValidVoucher(v)
	if err != nil {
		return nil, err
	}
	if v.ShowID != 0 {
		if _, err := s.prog.Show(ctx, v.ShowID); err != nil {
			return nil, err
		}
	}
	v.Retired = false
	return write(s, ctx, actor, Write{Op: "add voucher"}, func(tx Tx) (*booking.Voucher, error) {
		if v.FilmID != 0 {
			if _, found, err := tx.FilmForUpdate(v.FilmID); err != nil || !found {
				return nil, orErr(err, errNoFilm(v.FilmID))
			}
		}
		if v.TicketType != "" {
			if ok, err := tx.TicketTypeExists(v.TicketType); err != nil || !ok {
				return nil, orErr(err, booking.Errorf(booking.EInvalid, "There is no ticket type %q.", v.TicketType))
			}
		}
		id, ok, err := tx.InsertVoucher(v)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, booking.Errorf(booking.EConflict, "A voucher %s exists already.", v.Code)
		}
		v.ID, v.CreatedAt = id, time.UnixMilli(tx.Now().UnixMilli())
		detail := v.Code + " added: " + v.OffText() + ", " + plural(v.Uses, "use", "uses")
		return &v, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditVoucherChange, Detail: detail}, 0)
	})
}

// orErr is err, or else alt.
func orErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

// ListVouchers lists the vouchers.
func (s *Store) ListVouchers(ctx context.Context, actor booking.Actor) ([]booking.Voucher, error) {
	if err := booking.Authorize(actor, booking.ActionManageVouchers); err != nil {
		return nil, err
	}
	return s.d.ReadVouchers(ctx)
}

// RetireVoucher stops a voucher being accepted.
func (s *Store) RetireVoucher(ctx context.Context, actor booking.Actor, code string) (*booking.Voucher, error) {
	if err := booking.Authorize(actor, booking.ActionManageVouchers); err != nil {
		return nil, err
	}
	code, err := booking.ParseVoucherCode(code)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "retire voucher"}, func(tx Tx) (*booking.Voucher, error) {
		v, found, err := tx.VoucherForUpdate(code)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, booking.ErrNoVoucher(code)
		}
		moved, err := tx.RetireVoucher(v.ID)
		if err != nil {
			return nil, err
		}
		if !moved {
			return nil, booking.Errorf(booking.EConflict, "Voucher %s is retired already.", v.Code)
		}
		v.Retired = true
		return &v, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditVoucherChange, Detail: v.Code + " retired"}, 0)
	})
}

// ReportVouchers lists the redemptions of a range.
func (s *Store) ReportVouchers(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.VoucherReport, error) {
	w, r, err := s.reportRange(ctx, actor, r)
	if err != nil {
		return nil, err
	}
	rows, err := s.d.VoucherRedemptions(ctx, w)
	if err != nil {
		return nil, err
	}
	return &booking.VoucherReport{From: w.From, To: reportTo(r), Redemptions: rows}, nil
}

// takeVoucher redeems the voucher code on a sale of show inside tx: one
// use taken by the guarded statement, then the discount taken off the
// lines (booking.ApplyVoucher). It returns the lines net of the
// discount and the use, to write once the booking has its id. Any
// refusal leaves the caller to roll tx back, the use with it.
func takeVoucher(tx Tx, code string, show booking.Show, lines []booking.QuoteLine) ([]booking.QuoteLine, RedemptionRow, error) {
	code, err := booking.ParseVoucherCode(code)
	if err != nil {
		return nil, RedemptionRow{}, err
	}
	v, ok, err := tx.RedeemVoucher(code)
	if err != nil {
		return nil, RedemptionRow{}, err
	}
	if !ok {
		return nil, RedemptionRow{}, whyNotRedeemed(tx, code)
	}
	net, off, err := booking.ApplyVoucher(v, show, lines)
	if err != nil {
		return nil, RedemptionRow{}, err
	}
	return net, RedemptionRow{VoucherID: v.ID, Code: v.Code, Discount: off}, nil
}

// whyNotRedeemed says why the guard refused code, reading the voucher
// as it is now.
func whyNotRedeemed(tx Tx, code string) error {
	v, found, err := tx.VoucherForUpdate(code)
	switch {
	case err != nil:
		return err
	case !found:
		return booking.ErrNoVoucher(code)
	}
	if err := booking.VoucherRefusal(v, tx.Now()); err != nil {
		return err
	}
	return booking.Errorf(booking.EConflict, "Voucher %s changed at another counter; try again.", v.Code)
}

// returnVoucher gives back the use booking id's sale took, once: the
// redemption moves to returned by compare-and-set before the count goes
// up, so a second unwind finds nothing to give.
func returnVoucher(tx Tx, bookingID int64) error {
	voucherID, ok, err := tx.ReturnRedemption(bookingID)
	if err != nil || !ok {
		return err
	}
	return tx.GiveBackUse(voucherID)
}
