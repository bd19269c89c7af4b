package pg_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/pg"
)

// addShow schedules a second show of the film in the hall, two days on,
// on price list list where an adult standard seat costs adult; it
// returns the show's id.
func addShow(t *testing.T, conn *pgx.Conn, starts time.Time, list string, adult booking.Money) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	if err := conn.QueryRow(ctx, `INSERT INTO shows (film_id, hall_id, starts_at, capacity, price_list) VALUES (1, 1, $1, 20, $2) RETURNING id`,
		starts.Unix(), list).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO prices (list, type_code, seat_kind, amount) VALUES ($1, 'adult', 'standard', $2)`, list, adult); err != nil {
		t.Fatal(err)
	}
	return id
}

// An exchange to a dearer show charges the difference on the new
// booking; the old one keeps its other ticket; the same key again
// answers with the same exchange; the seats follow.
func TestExchange_DearerShowChargesTheDifference(t *testing.T) {
	s, u, clk := seeded(t)
	ctx := context.Background()
	conn := dbConn(t, u)
	evening := addShow(t, conn, clk.Now().Add(48*time.Hour), "evening", 1500)
	b := sell(t, s, clerk, []string{"A1", "A2"}, booking.CheckoutRequest{})
	req := booking.ExchangeRequest{Number: b.Number, Tickets: []string{b.Tickets[0].Code}, ToShow: evening, Seats: []string{"b5"},
		IdempotencyKey: "x1", Method: booking.Card, ExpectedDifference: 250, CheckDifference: true}
	res, err := s.Exchange(ctx, clerk, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Difference != 250 || res.Credit != 1250 || res.To.Show.ID != evening || res.To.Total != 1500 || res.To.ExchangedFrom != b.Number {
		t.Fatalf("exchange %+v", res)
	}
	if res.From.Status != booking.BookingConfirmed || res.From.Tickets[0].Status != booking.TicketVoid || res.From.Tickets[0].ExchangedTo != res.To.Number ||
		res.From.Tickets[1].Status != booking.TicketIssued {
		t.Fatalf("old booking after: %+v", res.From)
	}
	if p := res.To.Payments; len(p) != 1 || p[0].Kind != booking.PaymentSale || p[0].Method != booking.Card || p[0].Amount != 250 {
		t.Fatalf("new booking's payments: %+v", p)
	}
	again, err := s.Exchange(ctx, clerk, req)
	if err != nil || again.To.Number != res.To.Number {
		t.Fatalf("the key again: %+v, %v", again, err)
	}
	for show, want := range map[int64]int{1: 1, evening: 1} {
		if sh, err := s.Show(ctx, clerk, show); err != nil || sh.Sold != want {
			t.Fatalf("show %d sold %d, %v", show, sh.Sold, err)
		}
	}
	got, err := s.Booking(ctx, clerk, res.To.Number)
	if err != nil || got.ExchangedFrom != b.Number || got.Tickets[0].Seat.Label != "B5" {
		t.Fatalf("the new booking looked up: %+v, %v", got, err)
	}
	// Prices moved since: the difference the clerk saw is refused.
	req.IdempotencyKey, req.Tickets, req.Seats = "x2", []string{"A2"}, []string{"B6"}
	if _, err := conn.Exec(ctx, `UPDATE prices SET amount = 1600 WHERE list = 'evening'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exchange(ctx, clerk, req); booking.ErrorMessage(err) != "Prices changed: the difference is now +3.50." {
		t.Fatalf("a difference changed: %v", err)
	}
	rows, err := s.Audit(ctx, mgr, booking.AuditQuery{Booking: b.Number})
	if err != nil || len(rows) != 2 || rows[0].Action != booking.AuditExchange || rows[0].Amount != 250 ||
		rows[0].Detail != b.Number+" A1 → "+res.To.Number+" B5, difference +2.50" {
		t.Fatalf("audit of the old booking: %+v, %v", rows, err)
	}
}

// A cheaper exchange pays money back: a clerk alone is refused and
// nothing moves; a supervisor's pays it back in cash out of their shift,
// moving the whole booking cancels the old one, and the new booking
// refunds at its own prices without passing what was paid for it.
func TestExchange_CheaperNeedsASupervisor(t *testing.T) {
	s, u, clk := seeded(t)
	ctx := context.Background()
	conn := dbConn(t, u)
	matinee := addShow(t, conn, clk.Now().Add(48*time.Hour), "matinee", 1000)
	float := booking.Money(5000)
	b := sell(t, s, clerk, []string{"A1", "A2"}, booking.CheckoutRequest{Method: booking.Cash, OpenFloat: &float})
	req := booking.ExchangeRequest{Number: b.Number, ToShow: matinee, Seats: []string{"B1", "B2"}, IdempotencyKey: strings.Repeat("x", booking.MaxIdempotencyKey), Method: booking.Cash}
	_, err := s.Exchange(ctx, clerk, req)
	if booking.ErrorMessage(err) != "This exchange pays 5.00 back: a supervisor must approve it." {
		t.Fatalf("a clerk paying money back: %v", err)
	}
	req.Seats = []string{"A1", "A2"}
	if _, err := s.Exchange(ctx, clerk, req); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk paying money back: %v", err)
	}
	if n := count(t, conn, `SELECT count(*) FROM seat_claims WHERE show_id = $1`, matinee); n != 0 {
		t.Fatalf("a refused exchange left %d claims", n)
	}
	sh, err := s.OpenShift(ctx, sue, booking.OpenShiftRequest{Float: float})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Exchange(ctx, sue, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Difference != -500 || res.From.Status != booking.BookingCancelled || res.From.Reason != "exchanged for "+res.To.Number {
		t.Fatalf("exchange %+v, from %+v", res, res.From)
	}
	p := res.To.Payments
	if len(p) != 2 || p[0].Kind != booking.PaymentSale || p[0].Amount != 0 || p[1].Kind != booking.PaymentRefund || p[1].Amount != 500 || p[1].ShiftID != sh.ID {
		t.Fatalf("payments %+v", p)
	}
	if r, err := s.ShiftReport(ctx, sue, sh.ID); err != nil || r.Expected != float-500 {
		t.Fatalf("sue's drawer expects %+v, %v", r, err)
	}
	if n := count(t, conn, `SELECT count(*) FROM seat_claims WHERE show_id = 1 AND status IN ('held', 'sold')`); n != 0 {
		t.Fatalf("the first show keeps %d live claims", n)
	}
	got, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: res.To.Number})
	if err != nil || got.Status != booking.BookingCancelled {
		t.Fatalf("cancel of the new booking: %+v, %v", got, err)
	}
	// 5.00 back at the exchange and 2 x 10.00 now: the 25.00 paid.
	if back := count(t, conn, `SELECT sum(amount) FROM payments WHERE kind = 'refund'`); back != 2500 {
		t.Fatalf("refunded %d of 2500 paid", back)
	}
}

// A new seat another counter holds is the clash a sale meets, with the
// seats next to it; nothing moves. Two servers exchanging one booking at
// once to different seats: one exchange, the other told the booking or
// its ticket changed; with one key, both answer with the same exchange.
func TestExchange_ClashAndRaces(t *testing.T) {
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx := context.Background()
	conn := dbConn(t, u)
	if _, err := a.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B10"}, Owner: "other"}); err != nil {
		t.Fatal(err)
	}
	sold := sell(t, a, clerk, []string{"A1"}, booking.CheckoutRequest{})
	_, err := b.Exchange(ctx, clerk, booking.ExchangeRequest{Number: sold.Number, Seats: []string{"B10"}, IdempotencyKey: "c", Method: booking.Card})
	var taken *booking.SeatsTakenError
	if !errors.As(err, &taken) || taken.Taken[0].Label != "B10" || len(taken.Suggestions) == 0 {
		t.Fatalf("a held seat: %v", err)
	}
	if got, _ := a.Booking(ctx, clerk, sold.Number); got.Tickets[0].Status != booking.TicketIssued {
		t.Fatalf("after a clash the ticket is %s", got.Tickets[0].Status)
	}
	// Four rounds: A2-A5 race for B1-B8, a pair each; A6-A9 are each
	// moved onto their own seat by two servers with one key.
	for round := 0; round < 4; round++ {
		for _, sameKey := range []bool{false, true} {
			own := fmt.Sprintf("A%d", round+2)
			if sameKey {
				own = fmt.Sprintf("A%d", round+6)
			}
			sold := sell(t, a, clerk, []string{own}, booking.CheckoutRequest{})
			var wg sync.WaitGroup
			start := make(chan struct{})
			res := make([]*booking.ExchangeResult, 2)
			errs := make([]error, 2)
			for i, s := range []*pg.Store{a, b} {
				wg.Add(1)
				go func(i int, s *pg.Store) {
					defer wg.Done()
					<-start
					key := fmt.Sprintf("r%d-%v-%d", round, sameKey, i)
					if sameKey {
						key = fmt.Sprintf("r%d-same", round)
					}
					seat := []string{fmt.Sprintf("B%d", 2*round+1), fmt.Sprintf("B%d", 2*round+2)}[i]
					if sameKey {
						seat = own
					}
					res[i], errs[i] = s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: sold.Number, Seats: []string{seat}, IdempotencyKey: key, Method: booking.Card})
				}(i, s)
			}
			close(start)
			wg.Wait()
			if sameKey {
				if errs[0] != nil || errs[1] != nil || res[0].To.Number != res[1].To.Number {
					t.Fatalf("round %d, one key: %v, %v", round, errs[0], errs[1])
				}
				continue
			}
			won := 0
			for _, err := range errs {
				var stale *booking.StaleError
				switch {
				case err == nil:
					won++
				case !errors.As(err, &stale):
					t.Fatalf("round %d: the losing exchange: %v", round, err)
				}
			}
			if won != 1 {
				t.Fatalf("round %d: %d exchanges of one booking won", round, won)
			}
		}
	}
	if n := count(t, conn, `SELECT count(*) FROM exchanges`); n != 8 {
		t.Fatalf("%d exchanges for 8 that won", n)
	}
	if n := count(t, conn, `SELECT count(*) - count(DISTINCT (show_id, seat_id)) FROM seat_claims WHERE status IN ('held', 'sold')`); n != 0 {
		t.Fatalf("%d seats with two live claims", n)
	}
}
