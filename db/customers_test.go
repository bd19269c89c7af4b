package db_test

import (
	"context"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// Customer accounts and the film watchlist in the audit walk and the plan
// guard; their rules are the contract's (internal/contract/customers.go).

// A fresh fixture's first customer is 1, its first watch 1, and the film
// added after the seed's two is 3.
const (
	firstCustomer = 1
	firstWatch    = 1
	addedFilm     = 3
)

// annAccount opens the fixture's first customer.
func annAccount(f *auditFixture) {
	if _, err := f.s.AddCustomer(f.ctx, clerk, booking.NewCustomer{Name: "Ann Lee", Email: "ann@example.com", Phone: "07700 900123"}); err != nil {
		f.t.Fatal(err)
	}
}

// annWatching is Ann watching a film that has no show yet.
func annWatching(f *auditFixture) {
	annAccount(f)
	if _, err := f.s.AddFilm(f.ctx, auditMgr, booking.Film{Title: "Awaited", Minutes: 90}); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.s.Watch(f.ctx, clerk, booking.WatchRequest{FilmID: addedFilm, CustomerID: firstCustomer}); err != nil {
		f.t.Fatal(err)
	}
}

// annTold is annWatching, then the film's first show tells her.
func annTold(f *auditFixture) {
	annWatching(f)
	if _, err := f.s.AddShow(f.ctx, auditMgr, addedFilm, 1, f.clock.Now().Add(72*time.Hour)); err != nil {
		f.t.Fatal(err)
	}
}

func init() {
	writeCalls[booking.ActionCustomers] = append(writeCalls[booking.ActionCustomers],
		auditCall{"AddCustomer", auditClerk, booking.AuditCustomer, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.AddCustomer(f.ctx, a, booking.NewCustomer{Name: "Ann Lee", Email: "ann@example.com"})
			return err
		}},
		auditCall{"AttachCustomer", auditClerk, booking.AuditCustomer, func(f *auditFixture) { sellA1(f); annAccount(f) },
			func(f *auditFixture, a booking.Actor) error {
				return f.s.AttachCustomer(f.ctx, a, f.sold.Number, firstCustomer)
			}})
	writeCalls[booking.ActionEraseCustomer] = append(writeCalls[booking.ActionEraseCustomer],
		auditCall{"EraseCustomer", auditSup, booking.AuditCustomer, annWatching, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.EraseCustomer(f.ctx, a, firstCustomer)
			return err
		}})
	writeCalls[booking.ActionWatchlist] = append(writeCalls[booking.ActionWatchlist],
		auditCall{"Watch", auditClerk, booking.AuditWatch, func(f *auditFixture) {
			if _, err := f.s.AddFilm(f.ctx, auditMgr, booking.Film{Title: "Awaited", Minutes: 90}); err != nil {
				f.t.Fatal(err)
			}
		}, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Watch(f.ctx, a, booking.WatchRequest{FilmID: addedFilm, Name: "Bo", Phone: "0123 456789"})
			return err
		}},
		auditCall{"MarkWatchCalled", auditClerk, booking.AuditWatch, annTold, func(f *auditFixture, a booking.Actor) error {
			return f.s.MarkWatchCalled(f.ctx, a, firstWatch)
		}})
	writeCalls[booking.ActionWaitlist] = append(writeCalls[booking.ActionWaitlist],
		auditCall{"AddWaitlistEntry", auditClerk, booking.AuditWaitlist, func(f *auditFixture) { f.soldOut(); annAccount(f) },
			func(f *auditFixture, a booking.Actor) error {
				_, err := f.s.AddWaitlistEntry(f.ctx, a, booking.WaitlistRequest{ShowID: 3, Name: "Ann", Phone: "0123", Seats: 2, CustomerID: firstCustomer})
				return err
			}})
	unaudited = append(unaudited, "FindCustomers", "Customer", "WatchCalls", "FilmWatchers")

	// Accounts, their words and watches grow with every customer.
	for _, table := range []string{"customers", "customer_words", "film_watchers"} {
		historyTables[table] = true
	}
	boundedIndexes["film_watchers_to_call"] = "watchers told and not yet called: each leaves it when a clerk calls"
}

// customerSteps is planWorkload's part for customer accounts and the
// watchlist: an account, refused twice, found every way, attached to a
// booking, a reservation and a waiting-list entry, read whole; a watch
// told by a new show and called; the account erased.
func customerSteps(t *testing.T, s *db.Store, clock *storetest.Clock, step func(string, error), stepV func(string) func(any, error)) {
	t.Helper()
	ctx := context.Background()
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	ann, err := s.AddCustomer(ctx, clerk, booking.NewCustomer{Name: "Ann Lee", Email: "ann@example.com", Phone: "07700 900123"})
	step("AddCustomer", err)
	stepV("AddCustomer")(s.AddCustomer(ctx, clerk, booking.NewCustomer{Name: "Ann Again", Email: "ANN@example.com"}))
	stepV("AddCustomer")(s.AddCustomer(ctx, clerk, booking.NewCustomer{Name: "Bo", Email: "bo@example.com", Phone: "+44 7700 900123"}))
	for _, q := range []string{"ann@example.com", "900123", "ann", "lee an", "zz"} {
		stepV("FindCustomers")(s.FindCustomers(ctx, clerk, q))
	}
	sold := mustSell(t, s, 1, "cust", "J9")
	step("AttachCustomer", s.AttachCustomer(ctx, clerk, sold.Number, ann.ID))
	h := mustHold(t, s, 1, "cust-phone", "J10")
	stepV("Reserve")(s.Reserve(ctx, clerk, booking.ReserveRequest{HoldID: h.ID, Owner: "cust-phone", Name: "Ann Lee", Phone: "07700 900123", CustomerID: ann.ID}))
	stepV("AddWaitlistEntry")(s.AddWaitlistEntry(ctx, clerk, booking.WaitlistRequest{ShowID: 1, Name: "Ann Lee", Phone: "07700 900123", Seats: 2, CustomerID: ann.ID}))
	film, err := s.AddFilm(ctx, mgr, booking.Film{Title: "Awaited", Minutes: 90})
	step("AddFilm", err)
	w, err := s.Watch(ctx, clerk, booking.WatchRequest{FilmID: film, CustomerID: ann.ID})
	step("Watch", err)
	stepV("Watch")(s.Watch(ctx, clerk, booking.WatchRequest{FilmID: film, Name: "Ann", Phone: "07700 900123"}))
	stepV("AddShow")(s.AddShow(ctx, mgr, film, 1, clock.Now().Add(200*time.Hour)))
	stepV("WatchCalls")(s.WatchCalls(ctx, clerk))
	stepV("FilmWatchers")(s.FilmWatchers(ctx, clerk, film))
	step("MarkWatchCalled", s.MarkWatchCalled(ctx, clerk, w.ID))
	step("MarkWatchCalled", s.MarkWatchCalled(ctx, clerk, w.ID))
	stepV("Customer")(s.Customer(ctx, clerk, ann.ID))
	stepV("EraseCustomer")(s.EraseCustomer(ctx, supervisor, ann.ID))
	stepV("EraseCustomer")(s.EraseCustomer(ctx, supervisor, ann.ID))
}

// TestCustomers_RawDuplicateRefused: the unique indexes, not the Go code,
// keep one account per address and phone: rows inserted straight into
// the file, skipping the store, are refused, and so is an address in
// capitals that would slip past the index.
func TestCustomers_RawDuplicateRefused(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	if _, err := s.AddCustomer(context.Background(), clerk, booking.NewCustomer{Name: "Ann", Email: "ann@example.com", Phone: "07700 900123"}); err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	for what, q := range map[string]string{
		"the same address": `INSERT INTO customers (name, email, created_at, created_by) VALUES ('Eve', 'ann@example.com', 0, 'x')`,
		"the same phone":   `INSERT INTO customers (name, email, phone, phone_rev, created_at, created_by) VALUES ('Eve', 'eve@example.com', '447700900123', '321009007744', 0, 'x')`,
		"in capitals":      `INSERT INTO customers (name, email, created_at, created_by) VALUES ('Eve', 'ANN@example.com', 0, 'x')`,
	} {
		if _, err := raw.Exec(q); err == nil {
			t.Errorf("%s: inserted", what)
		}
	}
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM customers`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d customers (%v)", n, err)
	}
}
