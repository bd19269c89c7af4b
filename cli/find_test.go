package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// findData is a data dir whose demo cinema sold Ann Moreau one seat of
// tomorrow's first show and then Paul Moreau 120 more, each a booking of
// its own; it returns the dir and Ann's booking number.
func findData(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	s := dbtest.Open(t, filepath.Join(dir, dbFile), db.Options{})
	ctx := context.Background()
	seed, err := assets.Demo(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Seed(ctx, seed, true); err != nil {
		t.Fatal(err)
	}
	shows, err := s.Shows(ctx, booking.System, time.Now().AddDate(0, 0, 1))
	if err != nil || len(shows) == 0 {
		t.Fatalf("tomorrow's shows: %v, %v", shows, err)
	}
	sm, err := s.SeatMap(ctx, booking.System, shows[0].ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var seats []string
	for _, seat := range sm.Hall.Seats {
		if seat.Kind == booking.Standard && !seat.Blocked && !sm.Taken(seat.ID) {
			seats = append(seats, seat.Label)
		}
	}
	if len(seats) < 121 {
		t.Fatalf("the first show has %d free standard seats", len(seats))
	}
	sell := func(i int, name, phone string) string {
		owner := fmt.Sprintf("find-%d", i)
		h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: shows[0].ID, Seats: []string{seats[i]}, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner,
			Method: booking.Card, Customer: name, Phone: phone})
		if err != nil {
			t.Fatal(err)
		}
		return b.Number
	}
	ann := sell(0, "Ann Moreau", "")
	for i := 1; i <= 120; i++ {
		sell(i, "Paul Moreau", fmt.Sprintf("0700 %06d", i))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, ann
}

// boxoffice find searches as the counter does: Ann Moreau's one old
// booking is found by her full name, in either order and by the start of
// her names, behind 120 newer bookings of Paul Moreau; a booking number
// finds that booking alone, phone digits the ends of phone numbers.
func TestFind_CLI(t *testing.T) {
	dir, ann := findData(t)
	find := func(args ...string) ([]bookingJSON, string, error) {
		t.Helper()
		out, errOut, err := runArgs(t, "", append([]string{"--data", dir, "find"}, append(args, "--json")...)...)
		var got []bookingJSON
		if err == nil {
			if jerr := json.Unmarshal([]byte(out), &got); jerr != nil {
				t.Fatalf("find %q: %v\n%s", args, jerr, out)
			}
		}
		return got, out + errOut, err
	}
	for _, args := range [][]string{{"Ann Moreau"}, {"moreau", "ann"}, {"ann mor"}, {ann}, {strings.ToLower(strings.TrimPrefix(ann, "BO-"))}} {
		got, out, err := find(args...)
		if err != nil || len(got) != 1 || got[0].Number != ann || got[0].Customer != "Ann Moreau" {
			t.Errorf("find %q: %v\n%s", args, err, out)
		}
	}
	got, out, err := find("Paul Moreau")
	if err != nil || len(got) != 20 || got[0].Customer != "Paul Moreau" || got[0].Phone != "0700 000120" {
		t.Errorf("find Paul Moreau: %d bookings, %v, want the newest 20 first\n%s", len(got), err, out)
	}
	got, out, err = find("000117")
	if err != nil || len(got) != 1 || got[0].Phone != "0700 000117" {
		t.Errorf("find by the end of a phone number: %v\n%s", err, out)
	}

	// As text: a table with Ann's booking on its one line.
	text, errOut, err := runArgs(t, "", "--data", dir, "find", "Ann", "Moreau")
	if err != nil || !strings.HasPrefix(text, "BOOKING") || strings.Count(text, "\n") != 2 || !strings.Contains(text, ann) || !strings.Contains(text, "Ann Moreau") {
		t.Errorf("find as text: %v\n%s%s", err, text, errOut)
	}

	// Nothing found is exit code 4's error; nothing typed a usage error.
	_, errOut, err = runArgs(t, "", "--data", dir, "find", "Zebedee")
	if booking.ErrorCode(err) != booking.ENotFound || !strings.Contains(errOut, `No booking matches "Zebedee".`) {
		t.Errorf("find with no match: %v %q", err, errOut)
	}
	if _, _, err := runArgs(t, "", "--data", dir, "find", " "); !isUsage(err) {
		t.Errorf("find with nothing to find: %v", err)
	}
}
