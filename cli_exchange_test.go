package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/clitest"
)

// exchangeJSON reads `exchange --json`.
type exchangeJSON struct {
	From       clitest.Booking `json:"from"`
	To         clitest.Booking `json:"to"`
	Credit     string          `json:"credit"`
	Difference string          `json:"difference"`
}

// tomorrowShows lists tomorrow's demo shows, opening the CLI's shift.
func tomorrowShows(t *testing.T, data string) []clitest.Show {
	t.Helper()
	firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "shows", "--date", time.Now().AddDate(0, 0, 1).Format("2006-01-02"), "--json")
	var shows []clitest.Show
	if code != 0 || json.Unmarshal([]byte(out), &shows) != nil || len(shows) < 2 {
		t.Fatalf("shows: %d %s %s", code, out, errOut)
	}
	return shows
}

// Must show 4: an exchange to a dearer show charges the difference (one
// card sale of it in the payments table); at the door the old code is
// refused as exchanged and the new one admits; both shows' sold counts
// equal their claims and `check` passes.
func TestCLI_ExchangeToADearerShow(t *testing.T) {
	data := t.TempDir()
	shows := tomorrowShows(t, data)
	from, to := shows[0], shows[len(shows)-1]
	for _, args := range [][]string{
		{"price", "set", "adult", "--list", "gala", "20.00"},
		{"price", "set", "adult", "--list", "gala", "--seat", "premium", "24.00"},
		{"show", "price-list", jsonNumber(to.ID), "gala"},
	} {
		if code, _, errOut := runCLI(t, data, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
	}
	code, out, errOut := runCLI(t, data, "", "sell", jsonNumber(from.ID), "C3", "C4", "--json")
	var sold clitest.Booking
	if code != 0 || json.Unmarshal([]byte(out), &sold) != nil {
		t.Fatalf("sell: %d %s %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, data, "", "exchange", sold.Number, "--to-show", jsonNumber(to.ID), "--tickets", sold.Tickets[0].Code,
		"--seats", "d5", "--pay", "card", "--key", "swap-1", "--json")
	var x exchangeJSON
	if code != 0 || json.Unmarshal([]byte(out), &x) != nil {
		t.Fatalf("exchange: %d %s %s", code, out, errOut)
	}
	oldPrice, _ := booking.ParseMoney(sold.Tickets[0].Price)
	newTotal, _ := booking.ParseMoney(x.To.Total)
	diff := newTotal - oldPrice
	if diff <= 0 || x.Difference != diff.Signed() || x.To.ShowID != to.ID || x.From.Tickets[0].Status != "void" || strings.Count(out, `"exchange": true`) != 1 {
		t.Fatalf("exchange of %s at %s: %+v", sold.Tickets[0].Seat, oldPrice.String(), x)
	}
	// The same key again: the same exchange, nothing more written.
	if code, again, _ := runCLI(t, data, "", "exchange", sold.Number, "--to-show", jsonNumber(to.ID), "--tickets", "C3", "--seats", "D5",
		"--pay", "card", "--key", "swap-1", "--json"); code != 0 || !strings.Contains(again, x.To.Number) {
		t.Fatalf("retry: %d %s", code, again)
	}

	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	var n int
	var kind, method string
	var amount booking.Money
	if err := dbh.QueryRow(`SELECT count(*), kind, method, amount FROM payments WHERE booking_id = (SELECT id FROM bookings WHERE number = ?)`, x.To.Number).
		Scan(&n, &kind, &method, &amount); err != nil || n != 1 || kind != "sale" || method != "card" || amount != diff {
		t.Fatalf("payments of %s: %d %s %s %s %v; want one card sale of %s", x.To.Number, n, kind, method, amount.String(), err, diff.String())
	}
	for _, show := range []int64{from.ID, to.ID} {
		var sold, claims int
		if err := dbh.QueryRow(`SELECT sold, (SELECT count(*) FROM seat_claims WHERE show_id = shows.id AND status = 'sold') FROM shows WHERE id = ?`, show).Scan(&sold, &claims); err != nil || sold != 1 || claims != 1 {
			t.Fatalf("show %d: sold %d, %d sold claims, %v", show, sold, claims, err)
		}
	}

	at := func(start string) {
		s, err := time.Parse(time.RFC3339, start)
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("BOXOFFICE_NOW", s.Add(-time.Hour).Format(time.RFC3339))
	}
	at(from.Start)
	if code, _, errOut := runCLI(t, data, "", "admit", sold.Tickets[0].Code); code != 3 || !strings.Contains(errOut, "This ticket was exchanged for one in "+x.To.Number) {
		t.Fatalf("old code at the door: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "admit", sold.Tickets[1].Code); code != 0 {
		t.Fatalf("the ticket that stayed: exit %d, %q", code, errOut)
	}
	at(to.Start)
	if code, out, errOut := runCLI(t, data, "", "admit", x.To.Tickets[0].Code); code != 0 || !strings.Contains(out, "seat D5") {
		t.Fatalf("new code at the door: exit %d, %q %q", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, data, "", "check"); code != 0 {
		t.Fatalf("check: exit %d: %s %s", code, out, errOut)
	}
}

// A bad exchange command line exits 2 before anything is written; a taken
// seat exits 3 and names what is free next to it.
func TestCLI_ExchangeRefusals(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	shows := tomorrowShows(t, data)
	show := jsonNumber(shows[0].ID)
	_, out, _ := runCLI(t, data, "", "sell", show, "C3", "--allow-single", "--json")
	var sold clitest.Booking
	if err := json.Unmarshal([]byte(out), &sold); err != nil {
		t.Fatal(err)
	}
	runCLI(t, data, "", "sell", show, "F7", "--allow-single")
	before := writes(t, data)
	for name, args := range map[string][]string{
		"NoSeats":   {"exchange", sold.Number},
		"NoNumber":  {"exchange", "--seats", "D1"},
		"Mismatch":  {"exchange", sold.Number, "--tickets", "C3", "--seats", "D1,D2"},
		"Twice":     {"exchange", sold.Number, "--seats", "D1,d1"},
		"BadPay":    {"exchange", sold.Number, "--seats", "D1", "--pay", "cheque"},
		"BadTender": {"exchange", sold.Number, "--seats", "D1", "--tendered", "lots"},
	} {
		if code, _, errOut := runCLI(t, data, "", args...); code != 2 || errOut == "" {
			t.Errorf("%s: exit %d, %q", name, code, errOut)
		}
	}
	code, _, errOut := runCLI(t, data, "", "exchange", sold.Number, "--seats", "F7")
	if code != 3 || !strings.Contains(errOut, "F7") {
		t.Fatalf("a taken seat: exit %d, %q", code, errOut)
	}
	if after := writes(t, data); after != before {
		t.Fatalf("refused exchanges wrote: %v -> %v", before, after)
	}
}

// An exchange without --pay moves its difference the way the booking was
// paid: a card booking moved to a cheaper show is paid back to the card,
// never in cash.
func TestCLI_ExchangePaysBackTheWayItWasPaid(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	shows := tomorrowShows(t, data)
	from, to := shows[0], shows[len(shows)-1]
	for _, args := range [][]string{
		{"price", "set", "adult", "--list", "gala", "20.00"},
		{"show", "price-list", jsonNumber(from.ID), "gala"},
	} {
		if code, _, errOut := runCLI(t, data, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
	}
	code, out, errOut := runCLI(t, data, "", "sell", jsonNumber(from.ID), "C3", "--pay", "card", "--allow-single", "--json")
	var sold clitest.Booking
	if code != 0 || json.Unmarshal([]byte(out), &sold) != nil {
		t.Fatalf("sell: %d %s %s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, data, "", "exchange", sold.Number, "--to-show", jsonNumber(to.ID), "--seats", "D5", "--json")
	var x exchangeJSON
	if code != 0 || json.Unmarshal([]byte(out), &x) != nil || !strings.HasPrefix(x.Difference, "-") {
		t.Fatalf("exchange: %d %s %s", code, out, errOut)
	}
	for _, p := range x.To.Payments {
		if p.Method != "card" {
			t.Fatalf("the difference of a card booking went by %s: %+v", p.Method, x.To.Payments)
		}
	}
}
