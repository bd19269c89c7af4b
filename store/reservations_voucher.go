package store

import (
	"context"
	"strings"

	"boxoffice/booking"
)

// A voucher on a reservation (docs/kiosk.md). The reservation takes the
// use when it is made, by the vouchers' own rule (takeVoucher: the
// guarded statement, then booking.ApplyVoucher on the reserved seats), so
// the discounted price the customer is shown is the price they pay, and a
// single-use code offered by many kiosks at once is reserved once. The
// use then ends exactly once, by compare-and-set on the reservation's
// row of it (EndReservationVoucher, ReturnLapsedVouchers): paid, when the
// reservation is sold (the use passes to the booking's redemption, which
// the booking's cancel gives back as any sale's), or returned, in the
// transaction that lapses the reservation.

// VoucherEnd is how a reservation's use of a voucher ended.
type VoucherEnd string

const (
	// VoucherPaid: the reservation was sold; its booking has the use.
	VoucherPaid VoucherEnd = "paid"
	// VoucherReturned: the reservation lapsed; the use went back.
	VoucherReturned VoucherEnd = "returned"
)

// ReservationVoucherTx is what a voucher on a reservation asks of a
// transaction.
type ReservationVoucherTx interface {
	// InsertReservationVoucher writes the use u (its VoucherID, Code and
	// Discount) reservation reservationID took, at the transaction's
	// time.
	InsertReservationVoucher(reservationID int64, u RedemptionRow) error
	// StandingReservationVoucher reads the use reservation reservationID
	// took and that has not ended; found is false when there is none.
	StandingReservationVoucher(reservationID int64) (u RedemptionRow, found bool, err error)
	// EndReservationVoucher ends reservation reservationID's use as end
	// at the transaction's time, by compare-and-set: false when none
	// stood.
	EndReservationVoucher(reservationID int64, end VoucherEnd) (bool, error)
	// ReturnLapsedVouchers ends as returned, by compare-and-set, the
	// standing uses of the lapsed reservations of holds holdIDs, and
	// lists their vouchers, one a use (none when there are none).
	ReturnLapsedVouchers(holdIDs []int64) ([]int64, error)
}

// ReservationVoucherReads are the reads of reservations' vouchers.
type ReservationVoucherReads interface {
	// ReadReservationVoucher reads the use reservation reservationID took
	// (Returned once it went back); found is false when it took none.
	ReadReservationVoucher(ctx context.Context, reservationID int64) (u booking.VoucherUse, found bool, err error)
}

// reserveVoucher takes one use of code for reservation id of show sh's
// seats, at the types asked and the show's price list now: the discount
// it writes is what the customer is shown.
func (s *Store) reserveVoucher(tx Tx, id int64, sh booking.Show, seats []booking.Seat, in reserveInput) error {
	prices, err := tx.PriceTable()
	if err != nil {
		return err
	}
	list, err := s.d.ReadShowPriceList(tx.Context(), sh.ID)
	if err != nil {
		return err
	}
	sh.PriceList = list
	quote, err := booking.QuoteSeats(prices, strings.ToLower(list), seats, parseTypes(in.types))
	if err != nil {
		return err
	}
	_, use, err := takeVoucher(tx, in.voucher, sh, quote.Lines)
	if err != nil {
		return err
	}
	return tx.InsertReservationVoucher(id, use)
}

// reservedVoucher is a transaction in which the voucher of code was
// taken already, by the reservation being sold: the sale's takeVoucher
// reads it as it is (locked) and takes no second use, so the one rule
// prices the sale and writes its redemption.
type reservedVoucher struct {
	Tx
	code string
}

// RedeemVoucher is the reservation's use of code, not another one.
func (t reservedVoucher) RedeemVoucher(code string) (booking.Voucher, bool, error) {
	if code != t.code {
		return t.Tx.RedeemVoucher(code)
	}
	return t.VoucherForUpdate(code)
}

// withReservedVoucher is tx and the checkout of reservation r's sale:
// with the voucher r took, when one stands, in a transaction that knows
// it was taken.
func withReservedVoucher(tx Tx, r ReservationRow, creq booking.CheckoutRequest) (Tx, booking.CheckoutRequest, bool, error) {
	u, found, err := tx.StandingReservationVoucher(r.ID)
	if err != nil || !found {
		return tx, creq, false, err
	}
	creq.Voucher = u.Code
	return reservedVoucher{Tx: tx, code: u.Code}, creq, true, nil
}

// returnLapsedVouchers gives back, once, the uses the reservations of
// holds holdIDs (lapsed by the caller's transaction) took.
func returnLapsedVouchers(tx Tx, holdIDs []int64) error {
	ids, err := tx.ReturnLapsedVouchers(holdIDs)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := tx.GiveBackUse(id); err != nil {
			return err
		}
	}
	return nil
}
