package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// customerCases: an account's address and phone are unique once
// normalised, whatever the spelling and however many sign-ups race for
// them; a customer is found by address, phone or name; bookings,
// reservations and waiting-list entries belong to one; erasure blanks
// the person everywhere and keeps the money.
var customerCases = []testCase{
	{"AddAndFind", customerAddAndFind},
	{"Err", customerErr},
	{"OneAddressRace", customerOneAddressRace},
	{"Attach", customerAttach},
	{"SaleForCustomer", customerSale},
	{"Erase", customerErase},
}

func init() {
	groups = append(groups, group{"Customers", customerCases}, group{"FilmWatch", watchCases})
}

// accounts is every capability a customer case needs.
type accounts interface {
	booking.Customers
	booking.Watchlist
	booking.Bookings
	reserver
	waitlist
	AddFilm(ctx context.Context, actor booking.Actor, f booking.Film) (int64, error)
	AddShow(ctx context.Context, actor booking.Actor, filmID, hallID int64, starts time.Time) (int64, error)
	RetireFilm(ctx context.Context, actor booking.Actor, filmID int64) error
	Audit(ctx context.Context, actor booking.Actor, q booking.AuditQuery) ([]booking.AuditEntry, error)
}

const needCustomers = "customer accounts and the watchlist (booking.Customers, booking.Watchlist)"

func (e *env) accounts(t *testing.T) accounts {
	t.Helper()
	return need[accounts](t, e, needCustomers)
}

// addCustomer opens an account, or fails the case.
func (e *env) addCustomer(t *testing.T, c accounts, name, email, phone string) *booking.Customer {
	t.Helper()
	got, err := c.AddCustomer(e.ctx, clerk, booking.NewCustomer{Name: name, Email: email, Phone: phone})
	if err != nil {
		t.Fatalf("add %s: %v", name, err)
	}
	return got
}

// found is the ids FindCustomers returns for text, in order.
func (e *env) found(t *testing.T, c accounts, text string) []int64 {
	t.Helper()
	list, err := c.FindCustomers(e.ctx, clerk, text)
	if err != nil {
		t.Fatalf("find %q: %v", text, err)
	}
	ids := make([]int64, len(list))
	for i, x := range list {
		ids[i] = x.ID
	}
	return ids
}

// customerAddAndFind: an account keeps its address in lower case and its
// phone as international digits; it is found by the address in any
// spelling, by the phone's last digits in any form, and by the starts of
// its name's words in any order, newest first.
func customerAddAndFind(t *testing.T, e *env) {
	c := e.accounts(t)
	ann := e.addCustomer(t, c, "Ann Lee", "  Ann.Lee@Example.COM ", "07700 900123")
	if ann.Email != "ann.lee@example.com" || ann.Phone != "447700900123" || ann.Name != "Ann Lee" || ann.CreatedBy != clerk.Name {
		t.Fatalf("stored %+v", ann)
	}
	bo := e.addCustomer(t, c, "Bo Lee", "bo@example.com", "")
	annie := e.addCustomer(t, c, "Annie Müller", "annie@example.com", "+44 20 7946 0018")
	for text, want := range map[string][]int64{
		"ANN.LEE@example.com": {ann.ID},
		"nobody@example.com":  {},
		"900123":              {ann.ID},
		"+44 7700 900123":     {ann.ID},
		"020 7946 0018":       {annie.ID},
		"lee":                 {bo.ID, ann.ID},
		"ann":                 {annie.ID, ann.ID},
		"le an":               {ann.ID},
		"mull":                {annie.ID},
		"zz":                  {},
	} {
		if got := e.found(t, c, text); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("find %q: %v, want %v", text, got, want)
		}
	}
	d, err := c.Customer(e.ctx, clerk, ann.ID)
	if err != nil || d.Email != ann.Email || d.Erased() || len(d.Bookings)+len(d.Reservations)+len(d.Waitlist)+len(d.Watching) != 0 {
		t.Fatalf("customer: %+v, %v", d, err)
	}
	_, err = c.Customer(e.ctx, clerk, 1<<40)
	wantCode(t, "an unknown customer", err, booking.ENotFound)
}

// customerErr: a name, an address and a phone that cannot be stored are
// refused before anything is written; the door and a kiosk may neither
// open nor read an account.
func customerErr(t *testing.T, e *env) {
	c := e.accounts(t)
	for what, nc := range map[string]booking.NewCustomer{
		"no name":         {Name: " ", Email: "ann@example.com"},
		"no address":      {Name: "Ann", Email: ""},
		"no @":            {Name: "Ann", Email: "ann.example.com"},
		"two @":           {Name: "Ann", Email: "ann@x@example.com"},
		"a space":         {Name: "Ann", Email: "ann lee@example.com"},
		"an escape":       {Name: "Ann", Email: "ann\x1b[2J@example.com"},
		"a name escape":   {Name: "Ann\x1b]0;x\x07", Email: "ann@example.com"},
		"a short phone":   {Name: "Ann", Email: "ann@example.com", Phone: "123"},
		"letters phoned":  {Name: "Ann", Email: "ann@example.com", Phone: "07700 ABC"},
		"a long address":  {Name: "Ann", Email: strings.Repeat("a", booking.MaxEmailLen) + "@example.com"},
		"a name too long": {Name: strings.Repeat("A", booking.MaxNameLen+1), Email: "ann@example.com"},
	} {
		_, err := c.AddCustomer(e.ctx, clerk, nc)
		wantCode(t, what, err, booking.EInvalid)
	}
	if got := e.found(t, c, "ann"); len(got) != 0 {
		t.Fatalf("a refused account was written: %v", got)
	}
	for _, a := range []booking.Actor{door, kioskActor} {
		_, err := c.AddCustomer(e.ctx, a, booking.NewCustomer{Name: "Ann", Email: "ann@example.com"})
		wantCode(t, a.Name+" adds", err, booking.EForbidden)
		_, err = c.FindCustomers(e.ctx, a, "ann")
		wantCode(t, a.Name+" finds", err, booking.EForbidden)
	}
	_, err := c.FindCustomers(e.ctx, clerk, " ")
	wantCode(t, "an empty search", err, booking.EInvalid)
}

// customerOneAddressRace: 24 sign-ups at once for one address in three
// spellings make one customer; the other 23 are refused (EConflict) with
// whose the address is. A phone that is someone's is refused the same
// way, naming them.
func customerOneAddressRace(t *testing.T, e *env) {
	c := e.accounts(t)
	const racers = 24
	spellings := []string{"Ann@Example.com", " ann@example.com ", "ANN@EXAMPLE.COM"}
	made := make([]*booking.Customer, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			made[i], errs[i] = c.AddCustomer(e.ctx, clerk, booking.NewCustomer{Name: fmt.Sprintf("Ann %c", 'A'+i), Email: spellings[i%3]})
		})
	}
	wg.Wait()
	var winner *booking.Customer
	for i, err := range errs {
		if err == nil {
			if winner != nil {
				t.Fatalf("two customers for one address: %d and %d", winner.ID, made[i].ID)
			}
			winner = made[i]
		}
	}
	if winner == nil {
		t.Fatalf("nobody won: %v", errs[0])
	}
	want := fmt.Sprintf("That e-mail address belongs to customer %d (%s).", winner.ID, winner.Name)
	for i, err := range errs {
		if err == nil {
			continue
		}
		var taken *booking.CustomerTakenError
		if !errors.As(err, &taken) || taken.CustomerID != winner.ID {
			t.Fatalf("sign-up %d: %v, want the address taken by %d", i, err, winner.ID)
		}
		wantCode(t, "a sign-up that lost", err, booking.EConflict)
		wantMessage(t, "a sign-up that lost", err, want)
	}
	if got := e.found(t, c, "ann@example.com"); len(got) != 1 || got[0] != winner.ID {
		t.Fatalf("found %v, want only %d", got, winner.ID)
	}
	bo := e.addCustomer(t, c, "Bo", "bo@example.com", "+44 7700 900123")
	_, err := c.AddCustomer(e.ctx, clerk, booking.NewCustomer{Name: "Cy", Email: "cy@example.com", Phone: "07700 900123"})
	wantMessage(t, "a phone that is Bo's", err, fmt.Sprintf("That phone number belongs to customer %d (Bo).", bo.ID))
}

// customerAttach: a booking sold, then attached, is the customer's;
// attached to them again nothing changes; another customer cannot take
// it. A reservation and a waiting-list entry made for a customer are
// theirs, and so is the booking that pays the reservation; a kiosk may
// not name a customer.
func customerAttach(t *testing.T, e *env) {
	c := e.accounts(t)
	ann := e.addCustomer(t, c, "Ann Lee", "ann@example.com", "07700 900123")
	bo := e.addCustomer(t, c, "Bo", "bo@example.com", "")
	b := e.sellTo(t, "C3", "Ann Lee", "07700 900123")
	if err := c.AttachCustomer(e.ctx, clerk, strings.ToLower(b.Number), ann.ID); err != nil {
		t.Fatal(err)
	}
	rows := func() int {
		list, err := c.Audit(e.ctx, manager, booking.AuditQuery{Booking: b.Number})
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	before := rows()
	if err := c.AttachCustomer(e.ctx, clerk, b.Number, ann.ID); err != nil || rows() != before {
		t.Fatalf("attached again: %v, audit rows %d -> %d", err, before, rows())
	}
	err := c.AttachCustomer(e.ctx, clerk, b.Number, bo.ID)
	wantMessage(t, "Bo takes Ann's booking", err, fmt.Sprintf("Booking %s belongs to customer %d already.", b.Number, ann.ID))
	wantCode(t, "an unknown booking", c.AttachCustomer(e.ctx, clerk, "BO-ZZZZ2222", ann.ID), booking.ENotFound)
	wantCode(t, "an unknown customer", c.AttachCustomer(e.ctx, clerk, b.Number, 1<<40), booking.ENotFound)
	wantCode(t, "the door", c.AttachCustomer(e.ctx, door, b.Number, ann.ID), booking.EForbidden)

	h := e.hold(t, "phone", "D4", "D5")
	res, err := c.Reserve(e.ctx, clerk, booking.ReserveRequest{HoldID: h.ID, Owner: "phone", Name: "Ann Lee", Phone: "07700 900123", CustomerID: ann.ID})
	if err != nil {
		t.Fatal(err)
	}
	kh, err := c.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: kh.ID, Owner: "k1", Name: "Ann Lee", Phone: "07700 900123", CustomerID: ann.ID})
	wantCode(t, "a kiosk names a customer", err, booking.EForbidden)

	paid, err := c.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "k-pay-ann"})
	if err != nil {
		t.Fatal(err)
	}
	full := e.soldOutShow(t)
	entry, err := c.AddWaitlistEntry(e.ctx, clerk, booking.WaitlistRequest{ShowID: full, Name: "Ann Lee", Phone: "07700 900123", Seats: 2, CustomerID: ann.ID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.AddWaitlistEntry(e.ctx, clerk, booking.WaitlistRequest{ShowID: full, Name: "Cy", Phone: "0123", Seats: 2, CustomerID: 1 << 40})
	wantCode(t, "a waiting-list entry for an unknown customer", err, booking.ENotFound)
	d, err := c.Customer(e.ctx, clerk, ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Bookings) != 2 || d.Bookings[0].Number != paid.Number || d.Bookings[1].Number != b.Number || len(d.Reservations) != 1 || d.Reservations[0].Number != res.Number ||
		len(d.Waitlist) != 1 || d.Waitlist[0].ID != entry.ID || d.Waitlist[0].Show.ID != full {
		t.Fatalf("Ann has %d bookings, %d reservations, %d entries: %+v", len(d.Bookings), len(d.Reservations), len(d.Waitlist), d)
	}
	if d, err := c.Customer(e.ctx, clerk, bo.ID); err != nil || len(d.Bookings)+len(d.Reservations)+len(d.Waitlist) != 0 {
		t.Fatalf("Bo has %+v (%v)", d, err)
	}
}

// customerErase: erasure blanks the customer's name, address and phone
// on the account and on their booking, reservation, waiting-list entry
// and film watch; the booking keeps its total and payments; nobody finds
// any of it by name or phone; it happens once, needs a supervisor, and
// frees the address for a new account.
func customerErase(t *testing.T, e *env) {
	c := e.accounts(t)
	ann := e.addCustomer(t, c, "Ann Lee", "ann@example.com", "07700 900123")
	b := e.sellTo(t, "C3", "Ann Lee", "07700 900123")
	if err := c.AttachCustomer(e.ctx, clerk, b.Number, ann.ID); err != nil {
		t.Fatal(err)
	}
	h := e.hold(t, "phone", "D4", "D5")
	res, err := c.Reserve(e.ctx, clerk, booking.ReserveRequest{HoldID: h.ID, Owner: "phone", Name: "Ann Lee", Phone: "07700 900123", CustomerID: ann.ID})
	if err != nil {
		t.Fatal(err)
	}
	film := e.newFilm(t, c, "Unseen")
	if _, err := c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: film, CustomerID: ann.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddWaitlistEntry(e.ctx, clerk, booking.WaitlistRequest{ShowID: e.soldOutShow(t), Name: "Ann Lee", Phone: "07700 900123", Seats: 2, CustomerID: ann.ID}); err != nil {
		t.Fatal(err)
	}

	_, err = c.EraseCustomer(e.ctx, clerk, ann.ID)
	wantCode(t, "a clerk erases", err, booking.EForbidden)
	er, err := c.EraseCustomer(e.ctx, supervisor, ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	if er.Bookings != 1 || er.Reservations != 1 || er.Waitlist != 1 || er.Watches != 1 || er.Customer.ErasedAt == nil {
		t.Fatalf("erased %+v", er)
	}
	d, err := c.Customer(e.ctx, clerk, ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Erased() || d.Name != "" || d.Email != "" || d.Phone != "" || d.ErasedBy != supervisor.Name || len(d.Bookings) != 1 {
		t.Fatalf("after erasure: %+v", d)
	}
	kept := d.Bookings[0]
	if kept.Customer != "" || kept.Phone != "" || kept.Total != b.Total || len(kept.Payments) != len(b.Payments) || kept.Status != booking.BookingConfirmed {
		t.Fatalf("the booking kept %+v", kept)
	}
	if len(d.Reservations) != 1 || d.Reservations[0].Number != res.Number || d.Reservations[0].Name != "" || d.Reservations[0].Phone != "" {
		t.Fatalf("the reservation kept %+v", d.Reservations)
	}
	if len(d.Waitlist) != 1 || d.Waitlist[0].Name != "" || d.Waitlist[0].Phone != "" {
		t.Fatalf("the waiting-list entry kept %+v", d.Waitlist)
	}
	if len(d.Watching) != 1 || d.Watching[0].Name != "" || d.Watching[0].Phone != "" || d.Watching[0].Email != "" {
		t.Fatalf("the watch kept %+v", d.Watching)
	}
	for _, text := range []string{"ann", "lee", "900123", "ann@example.com"} {
		if got := e.found(t, c, text); len(got) != 0 {
			t.Errorf("find customer %q after erasure: %v", text, got)
		}
		if text == "ann@example.com" {
			continue
		}
		found, err := c.FindBookings(e.ctx, clerk, booking.BookingQuery{Text: text})
		if err != nil || len(found) != 0 {
			t.Errorf("find booking %q after erasure: %d (%v)", text, len(found), err)
		}
	}
	_, err = c.EraseCustomer(e.ctx, supervisor, ann.ID)
	wantCode(t, "erased twice", err, booking.EConflict)
	wantCode(t, "attached to an erased customer", c.AttachCustomer(e.ctx, clerk, e.sellTo(t, "C4", "", "").Number, ann.ID), booking.EInvalid)
	_, err = c.EraseCustomer(e.ctx, supervisor, 1<<40)
	wantCode(t, "an unknown customer", err, booking.ENotFound)
	again := e.addCustomer(t, c, "Ann Lee", "ANN@example.com", "07700 900123")
	if again.ID == ann.ID {
		t.Fatal("the erased account came back")
	}
	e.whole(t)
}

// soldOutShow sells every seat of the seed's second show and returns its
// id: a show a party may wait for.
func (e *env) soldOutShow(t *testing.T) int64 {
	t.Helper()
	second := *e
	sh, err := e.s.Show(e.ctx, clerk, e.show.ID+1)
	if err != nil {
		t.Fatal(err)
	}
	second.show = *sh
	second.sellOut(t, 2)
	return sh.ID
}

// customerSale: a sale that names a customer is theirs from its
// transaction on, and says so in its audit row; a sale naming a customer
// who does not exist, or was erased, is refused with nothing sold, and
// the hold can be sold without one.
func customerSale(t *testing.T, e *env) {
	c := e.accounts(t)
	ann := e.addCustomer(t, c, "Ann Lee", "ann@example.com", "")
	h := e.hold(t, "cust", "E1", "E2")
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "cust", IdempotencyKey: "k-cust", Method: booking.Card, CustomerID: ann.ID})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Customer(e.ctx, clerk, ann.ID)
	if err != nil || len(d.Bookings) != 1 || d.Bookings[0].Number != b.Number || d.Bookings[0].Total != b.Total {
		t.Fatalf("Ann's bookings %+v (%v)", d, err)
	}
	trail, err := c.Audit(e.ctx, manager, booking.AuditQuery{Booking: b.Number})
	if err != nil || len(trail) == 0 || !strings.Contains(trail[len(trail)-1].Detail, fmt.Sprintf("customer %d", ann.ID)) {
		t.Fatalf("the sale's audit %+v (%v)", trail, err)
	}
	bo := e.addCustomer(t, c, "Bo", "bo@example.com", "")
	wantMessage(t, "Bo takes a sale of Ann's", c.AttachCustomer(e.ctx, clerk, b.Number, bo.ID),
		fmt.Sprintf("Booking %s belongs to customer %d already.", b.Number, ann.ID))

	h = e.hold(t, "nobody", "E3")
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "nobody", IdempotencyKey: "k-nobody", Method: booking.Card, CustomerID: 1 << 40})
	wantCode(t, "a sale for an unknown customer", err, booking.ENotFound)
	if _, err := c.EraseCustomer(e.ctx, supervisor, bo.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "nobody", IdempotencyKey: "k-erased", Method: booking.Card, CustomerID: bo.ID})
	wantCode(t, "a sale for an erased customer", err, booking.EInvalid)
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "nobody", IdempotencyKey: "k-none", Method: booking.Card}); err != nil {
		t.Fatalf("the hold after the refusals: %v", err)
	}
	e.whole(t)
}
