package db_test

import (
	"context"
	"reflect"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// SQLite is one cinema, one site: AddSite refuses, saying where a chain
// runs; every hall and terminal is at site 1 and every member of staff
// at all of it; a site but the one is refused wherever it is named.
func TestStore_OneSite(t *testing.T) {
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{})
	mgr := storetest.Manager
	if _, err := s.AddSite(ctx, mgr, "North"); booking.ErrorCode(err) != booking.EInvalid ||
		booking.ErrorMessage(err) != "A cinema on the embedded SQLite store is one site; a chain of cinemas runs on PostgreSQL (--db postgres://…)." {
		t.Fatalf("add a site: %v", err)
	}
	if _, err := s.AddSite(ctx, storetest.Clerk, "North"); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk adding a site: %v", err)
	}
	list, err := s.Sites(ctx, storetest.Clerk)
	if err != nil || !reflect.DeepEqual(list, []booking.Site{{ID: 1, Name: "Main"}}) {
		t.Fatalf("sites: %+v, %v", list, err)
	}
	halls, err := s.Halls(ctx, mgr)
	if err != nil || len(halls) == 0 {
		t.Fatal(halls, err)
	}
	for _, h := range halls {
		if h.Site != booking.MainSite {
			t.Errorf("hall %s at site %d", h.Name, h.Site)
		}
	}
	key, _ := newAuthorizedKey(t)
	term, err := s.AddTerminal(ctx, mgr, "till-1", key)
	if err != nil || term.Site != booking.MainSite {
		t.Fatalf("add terminal: %+v, %v", term, err)
	}
	if terms, err := s.ListTerminals(ctx, mgr); err != nil || terms[0].Site != booking.MainSite {
		t.Fatalf("terminals: %+v, %v", terms, err)
	}
	if _, err := s.SetTerminalSite(ctx, mgr, "till-1", 2); booking.ErrorMessage(err) != "There is no site 2." {
		t.Errorf("till-1 to site 2: %v", err)
	}
	if _, err := s.SetTerminalSite(ctx, mgr, "till-0", 1); booking.ErrorMessage(err) != "No terminal called till-0." {
		t.Errorf("an unknown terminal: %v", err)
	}
	if err := s.SetStaffSite(ctx, mgr, storetest.Clerk.Name, 2); booking.ErrorMessage(err) != "There is no site 2." {
		t.Errorf("a clerk to site 2: %v", err)
	}
	if err := s.SetStaffSite(ctx, mgr, storetest.Clerk.Name, 1); err != nil {
		t.Errorf("a clerk to site 1: %v", err)
	}
	staff, err := s.ListStaff(ctx, mgr)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range staff {
		if st.Site != booking.AllSites {
			t.Errorf("%s works at site %d", st.Name, st.Site)
		}
	}
	h := storetest.Hall()
	h.Name, h.Site = "Far", 2
	if _, err := s.AddHall(ctx, mgr, h); booking.ErrorMessage(err) != "There is no site 2." {
		t.Errorf("a hall at site 2: %v", err)
	}
	day := booking.ReportRange{From: storetest.FixedClock().Now(), To: storetest.FixedClock().Now(), Site: 2}
	if _, err := s.ReportShifts(ctx, mgr, day); booking.ErrorMessage(err) != "There is no site 2." {
		t.Errorf("a report of site 2: %v", err)
	}
	away := storetest.Clerk
	away.Site = 2
	if _, err := s.Hold(ctx, away, booking.HoldRequest{ShowID: 1, Seats: []string{"E5"}, Owner: "a"}); booking.ErrorMessage(err) != booking.ErrorMessage(booking.ErrOtherSite(1)) {
		t.Errorf("a hold at site 2: %v", err)
	}
}
