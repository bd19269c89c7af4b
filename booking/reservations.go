package booking

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// Reservations and the self-service kiosk. A reservation is a hold whose
// expiry is its cut-off, with a row naming the customer: the sweeper
// lapses it by the same compare-and-set that lapses every hold, which
// frees its seats and wakes the waiting list, and paying for it is a
// checkout of that hold in one transaction.

// The kiosk's and reservations' limits, against squatting and bots.
const (
	// MaxSeatsPerReservation caps one reservation (and one kiosk hold).
	MaxSeatsPerReservation = 10
	// KioskHoldTTL is how long a kiosk holds seats while the customer
	// types their name: short, so an abandoned kiosk gives them back.
	KioskHoldTTL = 5 * time.Minute
	// KioskIdle is how long a kiosk waits for a key before it starts
	// again and lets its hold go.
	KioskIdle = 90 * time.Second
	// DefaultReserveCutoff is how long before its show a reservation
	// must be paid; it lapses then.
	DefaultReserveCutoff = 30 * time.Minute
	// MaxUnpaidPerPhone is how many unpaid reservations one phone number
	// may have for one show, and for the shows of one day.
	MaxUnpaidPerPhone = 3
	// KioskReservationsPerHour is how many reservations kiosks at one
	// network address may make in an hour.
	KioskReservationsPerHour = 10
	// MaxNameLen and the phone's digits bound what a customer types.
	MaxNameLen     = 60
	MinPhoneDigits = 6
	MaxPhoneDigits = 15
)

// ReservationStatus is where a reservation is: reserved (unpaid, seats
// held), paid (a booking now) or lapsed (its cut-off passed unpaid).
type ReservationStatus string

const (
	ReservationReserved ReservationStatus = "reserved"
	ReservationPaid     ReservationStatus = "paid"
	ReservationLapsed   ReservationStatus = "lapsed"
)

// ReservationStatuses is the kind of a reservation's row in the table of
// status moves: paid or lapsed, once.
const ReservationStatuses Statuses = "reservation"

func init() {
	transitions[ReservationStatuses] = table(ReservationReserved, map[ReservationStatus][]ReservationStatus{
		ReservationReserved: {ReservationPaid, ReservationLapsed},
		ReservationPaid:     nil, ReservationLapsed: nil,
	})
}

// ReservationSource says who took a reservation: the customer at a kiosk
// or a clerk for a customer on the phone.
type ReservationSource string

const (
	SourceKiosk   ReservationSource = "kiosk"
	SourceCounter ReservationSource = "counter"
)

// Reservation is seats held for a customer to pay for at the counter
// before CutOff.
type Reservation struct {
	ID        int64
	Number    string // like a booking number; the booking keeps it when paid
	Show      Show
	Name      string
	Phone     string
	HoldID    int64
	Seats     []Seat
	Types     map[string]string // seat label -> ticket type code
	Source    ReservationSource
	Status    ReservationStatus
	CreatedBy string
	CreatedAt time.Time
	CutOff    time.Time
	BookingID int64 // the sale, once paid
	// Voucher is the voucher the reservation took a use of, and the
	// discount it gave the seats when reserved (Returned once the
	// reservation lapsed and the use went back); nil: none.
	Voucher *VoucherUse
}

// KioskHoldRequest asks a kiosk for seats: the best N, or the seats named
// (the customer moved the block). MoveFrom is the session's live hold the
// new seats replace, in the same transaction. Addr is where the session
// is (KioskAddr: its network address, or DeviceAddr for a kiosk in the
// building), for the kiosk's per-address rules; the session when empty.
type KioskHoldRequest struct {
	ShowID   int64
	Owner    string
	N        int
	Seats    []string
	MoveFrom int64
	Addr     string
}

// CollectRequest is a customer collecting at a kiosk: the booking
// number, the last four digits of its phone, and where the kiosk is (as
// KioskHoldRequest.Addr), which the guess counters count by.
type CollectRequest struct {
	Number string
	Digits string
	Addr   string
}

// ReserveRequest turns Owner's live hold into a reservation for Name and
// Phone. Addr is where a kiosk session is (as KioskHoldRequest.Addr), for
// the per-address limit; a counter's is empty and has none.
type ReserveRequest struct {
	HoldID int64
	Owner  string
	Name   string
	Phone  string
	Types  map[string]string
	Addr   string
	// CustomerID, when not 0, is the customer account the reservation
	// belongs to (a counter's; a kiosk may not name one).
	CustomerID int64
	// Voucher, when not empty, is a voucher code: the reservation takes
	// one use of it and its price is the discounted one (docs/kiosk.md).
	Voucher string
}

// Validate refuses, before anything is written, a name or phone a
// customer could not have meant: too long, empty, or with characters that
// do not print (escape sequences included).
func (r ReserveRequest) Validate() error {
	if r.HoldID == 0 || r.Owner == "" {
		return Errorf(EInvalid, "Choose seats first.")
	}
	if err := ValidName(r.Name); err != nil {
		return err
	}
	if _, err := PhoneDigits(r.Phone); err != nil {
		return err
	}
	for label, code := range r.Types {
		if !ValidTicketTypeCode(code) || len(label) > 8 {
			return Errorf(EInvalid, "Choose a ticket type for each seat.")
		}
	}
	if r.Voucher != "" {
		// Bounded before it is read: a kiosk is public.
		if _, err := ParseVoucherCode(r.Voucher[:min(len(r.Voucher), 4*MaxVoucherCode)]); err != nil {
			return err
		}
		if len(r.Voucher) > 4*MaxVoucherCode {
			return Errorf(EInvalid, "A voucher code is %d to %d letters, digits, - or _.", MinVoucherCode, MaxVoucherCode)
		}
	}
	return nil
}

// ValidName refuses an empty name, one over MaxNameLen characters and one
// with characters that do not print.
func ValidName(name string) error {
	if strings.ContainsFunc(name, Unsafe) || strings.ContainsAny(name, "\t\r\n") {
		return Errorf(EInvalid, "Type your name in letters: it has characters that cannot be printed.")
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return Errorf(EInvalid, "Type your name.")
	}
	if len([]rune(name)) > MaxNameLen {
		return Errorf(EInvalid, "Type a name of at most %d characters.", MaxNameLen)
	}
	if !strings.ContainsFunc(name, unicode.IsLetter) {
		return Errorf(EInvalid, "Type your name in letters.")
	}
	return nil
}

// PhoneDigits returns the digits of a phone number typed with spaces,
// dashes, dots, brackets or a leading +, refusing anything else and a
// number of fewer than MinPhoneDigits or more than MaxPhoneDigits digits.
func PhoneDigits(phone string) (string, error) {
	phone = strings.TrimSpace(phone)
	if phone == "" {
		return "", Errorf(EInvalid, "Type your phone number.")
	}
	var digits []byte
	for i, r := range phone {
		switch {
		case r >= '0' && r <= '9':
			digits = append(digits, byte(r))
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')' || (r == '+' && i == 0):
		default:
			return "", Errorf(EInvalid, "Type your phone number in digits.")
		}
	}
	if len(digits) < MinPhoneDigits || len(digits) > MaxPhoneDigits {
		return "", Errorf(EInvalid, "Type a phone number of %d to %d digits.", MinPhoneDigits, MaxPhoneDigits)
	}
	return string(digits), nil
}

// PayReservationRequest takes payment for a reservation at the counter.
type PayReservationRequest struct {
	Number         string
	Method         PayMethod
	Tendered       Money
	IdempotencyKey string
	OpenFloat      *Money
}

// Validate refuses a request without a number, key or payment method.
func (r PayReservationRequest) Validate() error {
	if strings.TrimSpace(r.Number) == "" {
		return Errorf(EInvalid, "Type the reservation number.")
	}
	if strings.TrimSpace(r.IdempotencyKey) == "" {
		return Errorf(EInvalid, "A payment needs an idempotency key.")
	}
	if r.Method != Cash && r.Method != Card {
		return Errorf(EInvalid, "Choose cash or card.")
	}
	if r.Tendered < 0 {
		return Errorf(EInvalid, "The amount tendered cannot be negative.")
	}
	return nil
}

// Collection is what a customer collecting with a number and the last
// four digits of their phone sees: the paid booking with its tickets, or
// the unpaid reservation.
type Collection struct {
	Booking     *Booking
	Reservation *Reservation
}

// ErrNoBookingFound is Collect's one answer for a wrong pair, someone
// else's booking and a number that does not exist.
var ErrNoBookingFound = &Error{Code: ENotFound, Message: "No booking found."}

// ReservationsReport counts the reservations made in a range of days, by
// how they stand so far, per source (kiosk, then counter) and in all.
type ReservationsReport struct {
	Range ReportRange
	Rows  []ReservationsRow
	Total ReservationsRow
}

// ReservationsRow is one source's reservations: taken, and of those paid,
// lapsed and still reserved.
type ReservationsRow struct {
	Source                        ReservationSource
	Taken, Paid, Lapsed, Reserved int
}

// Add counts n reservations of status into the row.
func (r *ReservationsRow) Add(status ReservationStatus, n int) {
	r.Taken += n
	switch status {
	case ReservationPaid:
		r.Paid += n
	case ReservationLapsed:
		r.Lapsed += n
	default:
		r.Reserved += n
	}
}

// Kiosk is what the self-service kiosk may ask of the store: its holds,
// reserving and collecting. A kiosk screen is given only this (and the
// programme), so it has no staff action to call.
type Kiosk interface {
	// KioskHold holds seats for a kiosk session: the best req.N, or the
	// seats named, for KioskHoldTTL; with MoveFrom it releases that live
	// hold of the session in the same transaction. Needs ActionKiosk.
	// EInvalid for more than MaxSeatsPerReservation or a closed sale;
	// EConflict when the session already has a live hold (one at a time),
	// the seats are taken, the kiosks' share of the show is full
	// (KioskShareCheck) or the address must wait (KioskHoldWait, not on a
	// move); ENotFound for the show.
	KioskHold(ctx context.Context, actor Actor, req KioskHoldRequest) (*Hold, error)
	// KioskRelease lets go of every live hold of a kiosk session and says
	// how many. Needs ActionKiosk.
	KioskRelease(ctx context.Context, actor Actor, owner string) (int, error)
	// Reserve turns the owner's live hold into a reservation held until
	// the cut-off. Needs ActionReserve. EInvalid for a bad request
	// (ReserveRequest.Validate), more than MaxSeatsPerReservation, a
	// cut-off already passed, MaxUnpaidPerPhone unpaid reservations for
	// the phone already (NormalPhone's form), or ReservationsPerHour from
	// the address;
	// EExpired when the hold lapsed; ENotFound when owner has no such
	// hold.
	Reserve(ctx context.Context, actor Actor, req ReserveRequest) (*Reservation, error)
	// Collect shows a customer their booking or reservation for its
	// number and the last four digits of its phone. Needs ActionCollect.
	// Every try is counted per number and per address (CollectByNumber,
	// CollectByAddr) before the digits are compared, and every one that
	// fails leaves an AuditCollectFailed row. ErrNoBookingFound, in the
	// same time, for a wrong pair, another customer's booking and a
	// number that does not exist; EForbidden (CollectPaused), without
	// comparing, while the number or the address is paused; EInvalid when
	// the digits are not four digits.
	Collect(ctx context.Context, actor Actor, req CollectRequest) (*Collection, error)
	// KioskPay pays reservation req.Number, still reserved, with gift
	// card req.Card for the whole amount: the reservation becomes a paid
	// booking with tickets and the card's balance goes down by one ledger
	// row, as PayReservation with a gift card would. Needs
	// ActionKioskPay. Every try is counted per card and per address
	// (KioskPayKeys) before the card is looked up; one that fails leaves
	// an AuditKioskPayFailed row. EInvalid for a bad request (a card
	// number with a wrong check digit included); EForbidden
	// (KioskPayPaused), without looking, while the card or the address is
	// paused; ErrNoBookingFound when the number and digits match no
	// reservation still to pay; ENotFound for no such card (ErrNoGiftCard,
	// what the counter's balance check says); EConflict when the card
	// holds less than is due (ErrCardShort), nothing written; EExpired
	// when the reservation lapsed.
	KioskPay(ctx context.Context, actor Actor, req KioskPayRequest) (*Booking, error)
}

// Reservations is the counter's side of reservations.
type Reservations interface {
	// Reservation looks one up by number (or its QR, which is the
	// number). Needs ActionFindBooking. ENotFound.
	Reservation(ctx context.Context, actor Actor, number string) (*Reservation, error)
	// FindReservations finds reservations by number or phone, newest
	// first. Needs ActionFindBooking. EInvalid for empty text.
	FindReservations(ctx context.Context, actor Actor, text string) ([]Reservation, error)
	// PayReservation sells a reservation in one transaction: reserved ->
	// paid by compare-and-set and its hold checked out, the booking taking
	// the reservation's number. Needs ActionSell. EInvalid for a bad
	// request; EExpired when it lapsed; *StaleError (EConflict) when it
	// was paid already (the same key again returns that booking);
	// ENotFound.
	PayReservation(ctx context.Context, actor Actor, req PayReservationRequest) (*Booking, error)
	// ReportReservations counts the reservations made in the range: taken,
	// paid, lapsed, still reserved, by source. Needs ActionViewReports.
	ReportReservations(ctx context.Context, actor Actor, r ReportRange) (*ReservationsReport, error)
}
