package store

import (
	"context"

	"boxoffice/booking"
)

// BookingReads read bookings outside a transaction.
type BookingReads interface {
	// ReadBookings reads the bookings of ids in one snapshot: each
	// booking's row (Show.ID set; ExchangedFrom the number it was
	// exchanged from), its show with counts and life, its tickets in id
	// order (Seat.ID set; ExchangedTo the number that replaced a voided
	// one) and its payments in id order. Ids that name no booking are
	// left out.
	ReadBookings(ctx context.Context, ids []int64) (BookingRows, error)
	// BookingIDByNumber finds a booking by its (normalized) number;
	// found is false when none has it.
	BookingIDByNumber(ctx context.Context, number string) (id int64, found bool, err error)
	// BookingIDByKey finds the booking a checkout's idempotency key made.
	BookingIDByKey(ctx context.Context, key string) (id int64, found bool, err error)
	// BookingIDsByPhone lists the newest bookings, at most limit, whose
	// phone's digits end with digits.
	BookingIDsByPhone(ctx context.Context, digits string, limit int) ([]int64, error)
	// NameWordsWithPrefix lists the distinct stored name words starting
	// with prefix, in order, at most max: hopping from one word to the
	// next through the index, not reading every booking of every word.
	NameWordsWithPrefix(ctx context.Context, prefix string, max int) ([]string, error)
	// NameWordBookings counts the bookings indexed under any of words,
	// stopping at upTo: how selective a typed word is.
	NameWordBookings(ctx context.Context, words []string, upTo int) (int, error)
	// BookingIDsWithNameWords lists the newest bookings, at most limit,
	// indexed under one of any, and, for every list of also, under one of
	// its words.
	BookingIDsWithNameWords(ctx context.Context, any []string, also [][]string, limit int) ([]int64, error)
}

// BookingRows are the rows ReadBookings reads, for the store to put
// together.
type BookingRows struct {
	Bookings []booking.Booking
	Shows    map[int64]booking.Show
	Tickets  []BookingTicket
	Payments []BookingPayment
}

// BookingTicket is a ticket with the booking it belongs to.
type BookingTicket struct {
	BookingID int64
	booking.Ticket
}

// BookingPayment is a payment with the booking it belongs to.
type BookingPayment struct {
	BookingID int64
	booking.Payment
}

// Booking looks a booking up by number ("BO-7KQ2X9TD", any case, the
// prefix optional).
func (s *Store) Booking(ctx context.Context, actor booking.Actor, number string) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionViewBooking); err != nil {
		return nil, err
	}
	number = booking.NormalizeNumber(number)
	id, found, err := s.d.BookingIDByNumber(ctx, number)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, booking.ErrNoBooking(number)
	}
	return LoadBooking(s, ctx, id)
}

// BookingByKey returns the booking a checkout's idempotency key made.
func (s *Store) BookingByKey(ctx context.Context, actor booking.Actor, key string) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	id, found, err := s.d.BookingIDByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, booking.Errorf(booking.ENotFound, "No booking for that key.")
	}
	return LoadBooking(s, ctx, id)
}

// findLimit is how many bookings a search returns unless asked for fewer;
// maxFindLimit the most it returns.
const (
	findLimit    = 20
	maxFindLimit = 50
)

// FindBookings searches by booking number, phone or customer name, newest
// first. An exact booking number is the only result: a number must never
// bring up someone else's booking whose phone holds the same digits.
func (s *Store) FindBookings(ctx context.Context, actor booking.Actor, q booking.BookingQuery) ([]booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionFindBooking); err != nil {
		return nil, err
	}
	text := booking.CleanLine(q.Text, 64)
	if text == "" {
		return nil, booking.Errorf(booking.EInvalid, "Type a booking number, phone or name.")
	}
	limit := q.Limit
	if limit <= 0 || limit > maxFindLimit {
		limit = findLimit
	}
	if number := booking.NormalizeNumber(text); booking.IsBookingNumber(number) {
		id, found, err := s.d.BookingIDByNumber(ctx, number)
		if err != nil {
			return nil, err
		}
		if found {
			return LoadBookings(s, ctx, []int64{id})
		}
		// Not a booking: eight letters and digits may still be a phone
		// number or a name.
	}
	var ids []int64
	var err error
	if digits := booking.PhoneSearch(text); digits != "" {
		ids, err = s.d.BookingIDsByPhone(ctx, digits, limit)
	} else if words := booking.NameWords(text); len(words) > 0 {
		ids, err = s.findByName(ctx, words, limit)
	}
	if err != nil {
		return nil, err
	}
	return LoadBookings(s, ctx, ids)
}

// selectiveEnough is how many bookings under a typed word make it worth
// counting no further: fewer than this read at once.
const selectiveEnough = 5000

// findByName finds the newest bookings whose customer has, for every
// typed word, a word starting with it (booking.NameMatches), however old
// they are. Each typed word stands for the stored words it begins (at
// most booking.MaxPrefixWords); the one under which the fewest bookings
// are indexed drives, newest first, and each of its bookings is checked
// against the others' words by the index: "Ann Moreau" reads Ann
// Moreau's bookings, not the newest hundred Moreaus.
func (s *Store) findByName(ctx context.Context, typed []string, limit int) ([]int64, error) {
	stored := make([][]string, 0, len(typed))
	for _, w := range typed {
		words, err := s.d.NameWordsWithPrefix(ctx, w, booking.MaxPrefixWords)
		if err != nil {
			return nil, err
		}
		if len(words) == 0 {
			return nil, nil // nobody has a name starting so
		}
		stored = append(stored, words)
	}
	drive := 0
	if len(stored) > 1 {
		fewest := -1
		for i, words := range stored {
			n, err := s.d.NameWordBookings(ctx, words, selectiveEnough)
			if err != nil {
				return nil, err
			}
			if fewest < 0 || n < fewest {
				drive, fewest = i, n
			}
		}
	}
	also := make([][]string, 0, len(stored)-1)
	for i, words := range stored {
		if i != drive {
			also = append(also, words)
		}
	}
	return s.d.BookingIDsWithNameWords(ctx, stored[drive], also, limit)
}

// LoadBooking reads one whole booking. ENotFound.
func LoadBooking(s *Store, ctx context.Context, id int64) (*booking.Booking, error) {
	out, err := LoadBookings(s, ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, booking.Errorf(booking.ENotFound, "Not found.")
	}
	return &out[0], nil
}

// LoadBookings reads whole bookings in the order of ids, each with its
// show, tickets (their seats from the hall, their codes signed with the
// current key) and payments, all read in one snapshot so a booking
// cancelled meanwhile is never seen half cancelled.
func LoadBookings(s *Store, ctx context.Context, ids []int64) ([]booking.Booking, error) {
	out := []booking.Booking{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.d.ReadBookings(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*booking.Booking, len(rows.Bookings))
	for i := range rows.Bookings {
		b := &rows.Bookings[i]
		b.Show = rows.Shows[b.Show.ID]
		if _, err := s.prog.Hall(ctx, b.Show.HallID); err != nil {
			return nil, err
		}
		byID[b.ID] = b
	}
	for _, t := range rows.Tickets {
		b := byID[t.BookingID]
		if b == nil {
			continue
		}
		t.Seat, _ = s.prog.Seat(b.Show.HallID, t.Seat.ID)
		if len(s.opts.TicketKeys) > 0 {
			t.Code = booking.SignTicket(s.opts.TicketKeys[0], t.ID)
		}
		b.Tickets = append(b.Tickets, t.Ticket)
	}
	for _, p := range rows.Payments {
		if b := byID[p.BookingID]; b != nil {
			b.Payments = append(b.Payments, p.Payment)
		}
	}
	for _, id := range ids {
		if b, ok := byID[id]; ok {
			out = append(out, *b)
		}
	}
	return out, loadExtras(s, ctx, out)
}
